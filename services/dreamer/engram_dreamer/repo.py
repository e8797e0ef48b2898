"""SQL of the dreamer. The caller owns the transaction (tenant_tx)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from engram_kit.db import fetchrow_one

from .rows import EventStats


async def record_event(conn: asyncpg.Connection, namespace: str, consumer: str, event_id: UUID,
                       event_type: str, subject_id: str, occurred_at: datetime | None) -> bool:
    """Insert the event into the ledger; False when it was already processed."""
    inserted = await conn.fetchval(
        "INSERT INTO processed_events"
        " (namespace, consumer, event_id, event_type, subject_id, occurred_at)"
        " VALUES ($1, $2, $3, $4, $5, $6)"
        " ON CONFLICT (consumer, event_id) DO UPDATE"
        "   SET redeliveries = processed_events.redeliveries + 1"
        " RETURNING (xmax = 0)",
        namespace, consumer, event_id, event_type, subject_id, occurred_at,
    )
    return bool(inserted)


async def event_stats(conn: asyncpg.Connection) -> EventStats:
    return EventStats.of(await fetchrow_one(
        conn, "SELECT count(*) AS n, max(processed_at) AS last FROM processed_events"))
