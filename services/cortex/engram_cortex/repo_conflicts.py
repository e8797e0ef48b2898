"""SQL for conflicts. The caller owns the transaction."""

from __future__ import annotations

import uuid

import asyncpg

from .repo import FACT_COLUMNS
from .rows import ConflictRow, FactRow, select_list

CONFLICT_COLUMNS = select_list(ConflictRow)


async def open_conflict(conn: asyncpg.Connection, namespace: str, fact_a: uuid.UUID,
                        fact_b: uuid.UUID, lane: str) -> uuid.UUID:
    conflict_id = uuid.uuid4()
    await conn.execute(
        """INSERT INTO conflicts (namespace, id, fact_a, fact_b, lane)
           VALUES ($1, $2, $3, $4, $5)""",
        namespace, conflict_id, fact_a, fact_b, lane)
    return conflict_id


async def open_for(conn: asyncpg.Connection,
                   fact_ids: list[uuid.UUID]) -> dict[uuid.UUID, uuid.UUID]:
    """fact id -> the newest open conflict it is in."""
    rows = await conn.fetch(
        """SELECT id, fact_a, fact_b FROM conflicts
           WHERE status = 'open' AND (fact_a = ANY($1::uuid[]) OR fact_b = ANY($1::uuid[]))
           ORDER BY opened_at""", fact_ids)
    out: dict[uuid.UUID, uuid.UUID] = {}
    for r in rows:
        out[r["fact_a"]] = r["id"]
        out[r["fact_b"]] = r["id"]
    return out


async def close_for_retired(conn: asyncpg.Connection, fact_id: uuid.UUID, principal: str,
                            reasoning: str) -> None:
    """Open conflicts of a fact that left the live set are settled by that."""
    await conn.execute(
        """UPDATE conflicts SET status = 'resolved', reasoning = $3, decided_by = $2,
                  decided_at = clock_timestamp()
           WHERE status = 'open' AND (fact_a = $1 OR fact_b = $1)""",
        fact_id, principal, reasoning)


async def lock(conn: asyncpg.Connection, conflict_id: uuid.UUID) -> ConflictRow | None:
    row = await conn.fetchrow(
        f"SELECT {CONFLICT_COLUMNS} FROM conflicts WHERE id = $1 FOR UPDATE", conflict_id)
    return ConflictRow.of(row) if row is not None else None


async def decide(conn: asyncpg.Connection, conflict_id: uuid.UUID, status: str,
                 winner: uuid.UUID | None, reasoning: str, principal: str) -> ConflictRow:
    row = await conn.fetchrow(
        f"""UPDATE conflicts SET status = $2, winner = $3, reasoning = $4, decided_by = $5,
                  decided_at = clock_timestamp() WHERE id = $1 RETURNING {CONFLICT_COLUMNS}""",
        conflict_id, status, winner, reasoning, principal)
    assert row is not None  # callers pass a conflict they locked
    return ConflictRow.of(row)


async def listing(conn: asyncpg.Connection, status: str, limit: int) -> list[ConflictRow]:
    return ConflictRow.all(await conn.fetch(
        f"SELECT {CONFLICT_COLUMNS} FROM conflicts WHERE status = $1 "
        "ORDER BY opened_at DESC LIMIT $2", status, limit))


async def facts_by_id(conn: asyncpg.Connection,
                      ids: list[uuid.UUID]) -> dict[uuid.UUID, FactRow]:
    rows = FactRow.all(await conn.fetch(
        f"SELECT {FACT_COLUMNS} FROM facts WHERE id = ANY($1::uuid[])", ids))
    return {r.id: r for r in rows}
