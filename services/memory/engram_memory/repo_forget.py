"""SQL of forgetting entries: the rows a forget reads (locked), their
deletion, and the tombstones that outlive them. The caller owns the
(audited) transaction."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from .repo import Filters
from .rows import ForgetRow, TombstoneRow, select_list

FORGET_COLUMNS = select_list(ForgetRow)
TOMBSTONE_COLUMNS = select_list(TombstoneRow)


async def select_for_forget(conn: asyncpg.Connection, filters: Filters,
                            limit: int) -> list[ForgetRow]:
    where, params = filters.sql(2)
    rows = await conn.fetch(
        f"SELECT {FORGET_COLUMNS} FROM entries WHERE status <> 'deleted'{where}"
        " ORDER BY created_at LIMIT $1 FOR UPDATE", limit, *params,
    )
    return [ForgetRow.of(r) for r in rows]


async def forget_candidate(conn: asyncpg.Connection, entry_id: UUID) -> list[ForgetRow]:
    rows = await conn.fetch(
        f"SELECT {FORGET_COLUMNS} FROM entries WHERE id = $1 FOR UPDATE", entry_id
    )
    return [ForgetRow.of(r) for r in rows]


async def select_by_writer(conn: asyncpg.Connection, principal: str, since: datetime | None,
                           until: datetime | None, limit: int) -> list[ForgetRow]:
    rows = await conn.fetch(
        f"SELECT {FORGET_COLUMNS} FROM entries"
        " WHERE status <> 'deleted' AND writer_principal = $1"
        " AND ($2::timestamptz IS NULL OR created_at >= $2)"
        " AND ($3::timestamptz IS NULL OR created_at < $3)"
        " ORDER BY created_at, id LIMIT $4 FOR UPDATE", principal, since, until, limit)
    return [ForgetRow.of(r) for r in rows]


async def delete_entries(conn: asyncpg.Connection, ids: list[UUID]) -> None:
    """Removes rows, vectors and lexical data; links/versions/queue cascade and
    supersession pointers are nulled (ON DELETE SET NULL)."""
    await conn.execute("DELETE FROM entries WHERE id = ANY($1::uuid[])", ids)


async def add_tombstone(conn: asyncpg.Connection, namespace: str, entry_id: UUID,
                        digest: str, reason: str, by: str) -> UUID:
    """Who, why, when and a keyed digest: no words of what was forgotten."""
    value = await conn.fetchval(
        "INSERT INTO tombstones (id, namespace, entry_id, content_hmac, reason,"
        " forgotten_by) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5) RETURNING id",
        namespace, entry_id, digest, reason, by,
    )
    assert value is not None  # INSERT ... RETURNING yields the id
    return value


async def tombstone_for_digest(conn: asyncpg.Connection, digest: str) -> TombstoneRow | None:
    row = await conn.fetchrow(
        f"SELECT {TOMBSTONE_COLUMNS} FROM tombstones WHERE content_hmac = $1"
        " ORDER BY forgotten_at DESC LIMIT 1", digest,
    )
    return None if row is None else TombstoneRow.of(row)


async def tombstone_for_entry(conn: asyncpg.Connection, entry_id: UUID) -> TombstoneRow | None:
    row = await conn.fetchrow(
        f"SELECT {TOMBSTONE_COLUMNS} FROM tombstones WHERE entry_id = $1", entry_id
    )
    return None if row is None else TombstoneRow.of(row)
