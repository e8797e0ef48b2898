"""SQL for board mail. The caller owns the transaction."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from engram_kit import locks
from engram_kit.db import fetchval_one
from engram_kit.rows import select_list

from .rows import ErasedBody, InboxMessage, MessageOwner, SentMessage

INBOX_COLUMNS = select_list(InboxMessage)


@dataclass(frozen=True)
class NewMessage:
    namespace: str
    batch_id: uuid.UUID
    sender: str
    sender_principal: str
    recipient: str
    addressed_to: str
    request_id: str
    kind: str
    body: str
    body_hmac: str


async def insert(conn: asyncpg.Connection, m: NewMessage) -> uuid.UUID | None:
    """The new message's id; None when (sender, request_id, recipient) exists."""
    return await conn.fetchval(
        """INSERT INTO messages (namespace, id, batch_id, sender, sender_principal, recipient,
                                 addressed_to, request_id, kind, body, body_hmac)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (namespace, sender, request_id, recipient) WHERE request_id <> ''
           DO NOTHING RETURNING id""",
        m.namespace, uuid.uuid4(), m.batch_id, m.sender, m.sender_principal, m.recipient,
        m.addressed_to, m.request_id, m.kind, m.body, m.body_hmac,
    )


async def by_request(conn: asyncpg.Connection, sender: str,
                     request_id: str) -> list[SentMessage]:
    return SentMessage.all(await conn.fetch(
        f"""SELECT {select_list(SentMessage)} FROM messages
           WHERE sender = $1 AND request_id = $2 ORDER BY recipient""",
        sender, request_id))


async def pending_counts(conn: asyncpg.Connection, recipients: list[str]) -> dict[str, int]:
    rows = await conn.fetch(
        """SELECT recipient, count(*) AS n FROM messages
           WHERE recipient = ANY($1::text[]) AND acked_at IS NULL GROUP BY recipient""",
        recipients)
    return {r["recipient"]: r["n"] for r in rows}


async def sends_since(conn: asyncpg.Connection, sender: str, since: datetime) -> int:
    """Distinct sends (a fan-out is one) by `sender` since `since`."""
    return await fetchval_one(
        conn,
        """SELECT count(DISTINCT batch_id) FROM messages
           WHERE sender = $1 AND sent_at >= $2 AND kind = 'mail'""",
        sender, since)


async def pending(conn: asyncpg.Connection, recipient: str, after: tuple[datetime, uuid.UUID]
                  | None, limit: int) -> list[InboxMessage]:
    """Unacked mail, oldest first, after the cursor position."""
    if after is None:
        return InboxMessage.all(await conn.fetch(
            f"""SELECT {INBOX_COLUMNS} FROM messages WHERE recipient = $1 AND acked_at IS NULL
               ORDER BY sent_at, id LIMIT $2""",
            recipient, limit))
    return InboxMessage.all(await conn.fetch(
        f"""SELECT {INBOX_COLUMNS} FROM messages WHERE recipient = $1 AND acked_at IS NULL
             AND (sent_at, id) > ($2, $3) ORDER BY sent_at, id LIMIT $4""",
        recipient, after[0], after[1], limit))


async def pending_count(conn: asyncpg.Connection, recipient: str) -> int:
    return await fetchval_one(
        conn, "SELECT count(*) FROM messages WHERE recipient = $1 AND acked_at IS NULL",
        recipient)


async def owners(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> list[MessageOwner]:
    return MessageOwner.all(await conn.fetch(
        f"SELECT {select_list(MessageOwner)} FROM messages WHERE id = ANY($1::uuid[])", ids))


async def ack(conn: asyncpg.Connection, recipient: str, ids: list[uuid.UUID]) -> int:
    done = await conn.execute(
        """UPDATE messages SET acked_at = now()
           WHERE recipient = $1 AND id = ANY($2::uuid[]) AND acked_at IS NULL""",
        recipient, ids)
    return int(done.split()[-1])


async def redact(conn: asyncpg.Connection, ids: list[uuid.UUID],
                 by: str) -> list[ErasedBody]:
    return ErasedBody.all(await conn.fetch(
        """UPDATE messages SET body = NULL, redacted_at = now(), redacted_by = $2
           WHERE id = ANY($1::uuid[]) AND body IS NOT NULL
           RETURNING """ + select_list(ErasedBody),
        ids, by))


async def lock_sender(conn: asyncpg.Connection, namespace: str, agent_id: str) -> None:
    await locks.xact_lock(conn, f"{namespace}/{agent_id}")
