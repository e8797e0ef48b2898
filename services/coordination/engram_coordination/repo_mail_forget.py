"""SQL for erasing mail bodies. The caller owns the transaction."""

from __future__ import annotations

import uuid

import asyncpg

from engram_kit.rows import select_list

from .rows import ErasedBody, LockedMessage

_LOCKED = {"id": "m.id", "batch_id": "m.batch_id", "sender_principal": "m.sender_principal",
           "recipient": "m.recipient", "recipient_principal": "a.principal AS recipient_principal"}


async def lock_message(conn: asyncpg.Connection, mid: uuid.UUID) -> LockedMessage | None:
    """The message, with the principal of its recipient agent."""
    row = await conn.fetchrow(
        f"SELECT {select_list(LockedMessage, _LOCKED)}"
        """ FROM messages m LEFT JOIN agents a ON a.id = m.recipient
           WHERE m.id = $1 FOR UPDATE OF m""", mid)
    return None if row is None else LockedMessage.of(row)


async def erase_bodies(conn: asyncpg.Connection, mid: uuid.UUID, batch: uuid.UUID | None,
                       by: str) -> list[ErasedBody]:
    """The message's body (and with `batch` every copy of its send); the keyed
    digest stays."""
    return ErasedBody.all(await conn.fetch(
        """UPDATE messages SET body = NULL, redacted_at = coalesce(redacted_at, now()),
                  redacted_by = coalesce(redacted_by, $3)
           WHERE id = $1 OR batch_id = $2 RETURNING """ + select_list(ErasedBody),
        mid, batch, by))
