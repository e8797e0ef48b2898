"""SQL for world facts. The caller owns the transaction."""

from __future__ import annotations

import uuid

import asyncpg
import numpy as np


async def live_in_slot(conn: asyncpg.Connection, entity: str,
                       attribute: str) -> list[asyncpg.Record]:
    return await conn.fetch("SELECT * FROM live_world_facts WHERE entity = $1 "
                            "AND attribute = $2", entity, attribute)


async def recheck(conn: asyncpg.Connection, fact_id: uuid.UUID, url: str, quote: str,
                  confidence: float) -> asyncpg.Record:
    row = await conn.fetchrow(
        """UPDATE world_facts SET checked_at = clock_timestamp(), source_url = $2,
                  source_quote = $3, confidence = $4 WHERE id = $1 RETURNING *""",
        fact_id, url, quote, confidence)
    assert row is not None  # callers pass a fact they read in this transaction
    return row


async def retire(conn: asyncpg.Connection, old_id: uuid.UUID, new_id: uuid.UUID) -> None:
    await conn.execute("UPDATE world_facts SET retired_at = clock_timestamp(), "
                       "superseded_by = $2 WHERE id = $1", old_id, new_id)


async def insert(conn: asyncpg.Connection, ns: str, entity: str, attribute: str, value: str,
                 norm_value: str, url: str, quote: str, freshness: str, confidence: float,
                 principal: str, embedding: np.ndarray | None) -> asyncpg.Record:
    row = await conn.fetchrow(
        """INSERT INTO world_facts (namespace, id, entity, attribute, value, norm_value,
               source_url, source_quote, freshness, confidence, writer_principal, embedding)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *""",
        ns, uuid.uuid4(), entity, attribute, value, norm_value, url, quote, freshness,
        confidence, principal, embedding)
    assert row is not None  # INSERT ... RETURNING yields the row
    return row
