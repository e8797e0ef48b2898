"""SQL for the graph. The caller owns the transaction."""

from __future__ import annotations

import uuid
from datetime import datetime

import asyncpg

from .repo import FACT_COLUMNS
from .rows import EdgeRow, FactRow, RelationRow, select_list

EDGE_COLUMNS = select_list(EdgeRow)
RELATION_COLUMNS = select_list(RelationRow)


async def custom_relations(conn: asyncpg.Connection) -> list[RelationRow]:
    return RelationRow.all(await conn.fetch(
        f"SELECT {RELATION_COLUMNS} FROM relations ORDER BY name"))


async def add_relation(conn: asyncpg.Connection, namespace: str, name: str, inverse: str,
                       transitive: bool, symmetric: bool, by: str) -> None:
    await conn.execute(
        """INSERT INTO relations (namespace, name, inverse, transitive, is_symmetric, added_by)
           VALUES ($1, $2, $3, $4, $5, $6)""",
        namespace, name, inverse, transitive, symmetric, by)


async def live_edge(conn: asyncpg.Connection, src: str, relation: str,
                    dst: str) -> EdgeRow | None:
    row = await conn.fetchrow(
        f"SELECT {EDGE_COLUMNS} FROM live_edges WHERE src = $1 AND relation = $2 AND dst = $3",
        src, relation, dst)
    return EdgeRow.of(row) if row is not None else None


async def insert_edge(conn: asyncpg.Connection, namespace: str, src: str, relation: str,
                      dst: str, provenance: str, quote: str, writer: str,
                      valid_from: datetime | None) -> EdgeRow:
    row = await conn.fetchrow(
        f"""INSERT INTO edges (namespace, id, src, relation, dst, provenance, evidence_quote,
                              writer_principal, valid_from)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, coalesce($9, clock_timestamp()))
           ON CONFLICT (namespace, src, relation, dst) WHERE retired_at IS NULL DO NOTHING
           RETURNING {EDGE_COLUMNS}""",
        namespace, uuid.uuid4(), src, relation, dst, provenance, quote, writer, valid_from)
    assert row is not None  # callers checked there is no live edge, in this transaction
    return EdgeRow.of(row)


async def retire_edge(conn: asyncpg.Connection, edge_id: uuid.UUID) -> EdgeRow:
    row = await conn.fetchrow(
        f"""UPDATE edges SET retired_at = clock_timestamp(),
                  valid_to = coalesce(valid_to, clock_timestamp())
           WHERE id = $1 RETURNING {EDGE_COLUMNS}""", edge_id)
    assert row is not None  # callers pass an edge they read in this transaction
    return EdgeRow.of(row)


async def edges_touching(conn: asyncpg.Connection, entities: list[str],
                         seen: list[uuid.UUID], limit: int) -> list[EdgeRow]:
    """Newest first, leaving out the edges a walk has already taken."""
    return EdgeRow.all(await conn.fetch(
        f"""SELECT {EDGE_COLUMNS} FROM live_edges
           WHERE (src = ANY($1::text[]) OR dst = ANY($1::text[])) AND id <> ALL($2::uuid[])
           ORDER BY recorded_at DESC LIMIT $3""", entities, seen, limit))


async def facts_of(conn: asyncpg.Connection, entities: list[str],
                   per_entity: int) -> list[FactRow]:
    """Live, served facts (active or contested) of each entity, newest first."""
    return FactRow.all(await conn.fetch(
        f"""SELECT {FACT_COLUMNS} FROM (
               SELECT {FACT_COLUMNS}, row_number() OVER (PARTITION BY entity
                                                         ORDER BY recorded_at DESC) AS n
               FROM live_facts
               WHERE entity = ANY($1::text[]) AND verdict IN ('active', 'contested')) x
           WHERE n <= $2 ORDER BY entity, recorded_at DESC""", entities, per_entity))


async def entities_named(conn: asyncpg.Connection, names: list[str],
                         limit: int) -> list[str]:
    rows = await conn.fetch(
        """SELECT name FROM entities WHERE name = ANY($1::text[])
           UNION SELECT entity FROM aliases WHERE alias = ANY($1::text[]) LIMIT $2""",
        names, limit)
    return [r[0] for r in rows]
