"""SQL for merging one entity into another. The caller owns the transaction
(and has locked both entities)."""

from __future__ import annotations

import asyncpg

from .rows import EntityProfileRow, MergeFactRow, select_list

_PROFILE_COLUMNS = select_list(EntityProfileRow, expressions={
    "facts": "count(*) AS facts",
    "pairs": "array_agg(attribute || '=' || norm_value) AS pairs",
})
_LIVE_COLUMNS = select_list(MergeFactRow)


async def entity_profiles(conn: asyncpg.Connection, limit: int) -> list[EntityProfileRow]:
    """Every entity with live facts: how many, and its (attribute=value) pairs."""
    return EntityProfileRow.all(await conn.fetch(
        f"""SELECT {_PROFILE_COLUMNS}
            FROM live_facts GROUP BY entity ORDER BY entity LIMIT $1""", limit))


async def live_of(conn: asyncpg.Connection, entities: list[str]) -> list[MergeFactRow]:
    return MergeFactRow.all(await conn.fetch(
        f"SELECT {_LIVE_COLUMNS} FROM live_facts "
        "WHERE entity = ANY($1::text[]) ORDER BY recorded_at", entities))


async def rekey_facts(conn: asyncpg.Connection, merge: str, into: str) -> int:
    done = await conn.execute("UPDATE facts SET entity = $2 WHERE entity = $1", merge, into)
    return int(done.split()[-1])


async def rekey_slot_rows(conn: asyncpg.Connection, ns: str, merge: str, into: str) -> None:
    """Slots and tombstones move; where `into` already has the row, its own stays."""
    await conn.execute(
        """INSERT INTO slots (namespace, entity, attribute, set_valued, created_at)
           SELECT namespace, $3, attribute, set_valued, created_at FROM slots
           WHERE namespace = $1 AND entity = $2 ON CONFLICT DO NOTHING""", ns, merge, into)
    await conn.execute("DELETE FROM slots WHERE entity = $1", merge)
    await conn.execute(
        """INSERT INTO tombstones (namespace, entity, attribute, norm_value, fact_id, reason,
                                   retired_at)
           SELECT namespace, $3, attribute, norm_value, fact_id, reason, retired_at
           FROM tombstones WHERE namespace = $1 AND entity = $2 ON CONFLICT DO NOTHING""",
        ns, merge, into)
    await conn.execute("DELETE FROM tombstones WHERE entity = $1", merge)


async def rekey_edges(conn: asyncpg.Connection, merge: str, into: str) -> int:
    """Live edges between the two are retired (they would become self-loops),
    as are edges `into` already has; the rest are re-pointed."""
    await conn.execute(
        """UPDATE edges SET retired_at = clock_timestamp() WHERE retired_at IS NULL AND (
               (src = $1 AND dst = $2) OR (src = $2 AND dst = $1) OR
               (src = $1 AND EXISTS (SELECT 1 FROM edges o WHERE o.retired_at IS NULL
                   AND o.src = $2 AND o.relation = edges.relation AND o.dst = edges.dst)) OR
               (dst = $1 AND EXISTS (SELECT 1 FROM edges o WHERE o.retired_at IS NULL
                   AND o.dst = $2 AND o.relation = edges.relation AND o.src = edges.src)))""",
        merge, into)
    moved = await conn.execute(
        "UPDATE edges SET src = $2 WHERE src = $1 AND retired_at IS NULL", merge, into)
    moved2 = await conn.execute(
        "UPDATE edges SET dst = $2 WHERE dst = $1 AND retired_at IS NULL", merge, into)
    return int(moved.split()[-1]) + int(moved2.split()[-1])


async def become_alias(conn: asyncpg.Connection, ns: str, merge: str, into: str,
                       principal: str) -> None:
    await conn.execute("UPDATE aliases SET entity = $2 WHERE entity = $1", merge, into)
    await conn.execute(
        """INSERT INTO entities (namespace, name) VALUES ($1, $2) ON CONFLICT DO NOTHING""",
        ns, into)
    await conn.execute("DELETE FROM entities WHERE name = $1", merge)
    await conn.execute(
        """INSERT INTO aliases (namespace, alias, entity, created_by) VALUES ($1, $2, $3, $4)
           ON CONFLICT (namespace, alias) DO UPDATE SET entity = EXCLUDED.entity""",
        ns, merge, into, principal)
