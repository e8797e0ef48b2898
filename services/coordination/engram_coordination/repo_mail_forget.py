"""SQL for erasing mail bodies. The caller owns the transaction."""

from __future__ import annotations

import uuid

import asyncpg


async def lock_message(conn: asyncpg.Connection, mid: uuid.UUID) -> asyncpg.Record | None:
    """The message, with the principal of its recipient agent."""
    return await conn.fetchrow(
        """SELECT m.id, m.batch_id, m.sender_principal, m.recipient,
                  a.principal AS recipient_principal
           FROM messages m LEFT JOIN agents a ON a.id = m.recipient
           WHERE m.id = $1 FOR UPDATE OF m""", mid)


async def erase_bodies(conn: asyncpg.Connection, mid: uuid.UUID, batch: uuid.UUID | None,
                       by: str) -> list[asyncpg.Record]:
    """The message's body (and with `batch` every copy of its send); the keyed
    digest stays."""
    return await conn.fetch(
        """UPDATE messages SET body = NULL, redacted_at = coalesce(redacted_at, now()),
                  redacted_by = coalesce(redacted_by, $3)
           WHERE id = $1 OR batch_id = $2 RETURNING id, body_hmac""", mid, batch, by)
