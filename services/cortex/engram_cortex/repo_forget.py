"""SQL for forgetting facts by their evidence. The caller owns the
transaction."""

from __future__ import annotations

import uuid

import asyncpg


async def lock_by_source(conn: asyncpg.Connection, refs: list[str]) -> list[uuid.UUID]:
    """Facts whose evidence is one of these memory entries."""
    return [r["id"] for r in await conn.fetch(
        """SELECT id FROM facts WHERE source_type = 'memory_entry'
           AND source_ref = ANY($1::text[]) FOR UPDATE""", refs)]


async def open_partners(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> list[uuid.UUID]:
    """The other side of every open conflict these facts are in."""
    return [r["other"] for r in await conn.fetch(
        """SELECT CASE WHEN fact_a = ANY($1::uuid[]) THEN fact_b ELSE fact_a END AS other
           FROM conflicts WHERE status = 'open'
             AND (fact_a = ANY($1::uuid[]) OR fact_b = ANY($1::uuid[]))""", ids)]


async def delete_facts(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> None:
    """The facts, the conflicts they were in and the tombstones of their values."""
    await conn.execute("DELETE FROM conflicts WHERE fact_a = ANY($1::uuid[]) "
                       "OR fact_b = ANY($1::uuid[])", ids)
    await conn.execute("DELETE FROM tombstones WHERE fact_id = ANY($1::uuid[])", ids)
    await conn.execute("DELETE FROM facts WHERE id = ANY($1::uuid[])", ids)


async def reactivate(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> None:
    """A contested fact whose last open conflict is gone is active again."""
    await conn.execute(
        """UPDATE facts f SET verdict = 'active' WHERE f.id = ANY($1::uuid[])
             AND f.verdict = 'contested' AND NOT EXISTS (
               SELECT 1 FROM conflicts c WHERE c.status = 'open'
                 AND (c.fact_a = f.id OR c.fact_b = f.id))""", ids)
