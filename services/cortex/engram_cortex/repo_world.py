"""SQL for world facts. The caller owns the transaction."""

from __future__ import annotations

import uuid

import asyncpg
import numpy as np

from .rows import WorldFactRow, select_list

# What reads of world facts select: the fields of WorldFactRow (rows.py), never `*`.
WORLD_COLUMNS = select_list(WorldFactRow)


async def live_in_slot(conn: asyncpg.Connection, entity: str,
                       attribute: str) -> list[WorldFactRow]:
    return WorldFactRow.all(await conn.fetch(
        f"SELECT {WORLD_COLUMNS} FROM live_world_facts WHERE entity = $1 AND attribute = $2",
        entity, attribute))


async def recheck(conn: asyncpg.Connection, fact_id: uuid.UUID, url: str, quote: str,
                  confidence: float) -> WorldFactRow:
    row = await conn.fetchrow(
        f"""UPDATE world_facts SET checked_at = clock_timestamp(), source_url = $2,
                  source_quote = $3, confidence = $4 WHERE id = $1 RETURNING {WORLD_COLUMNS}""",
        fact_id, url, quote, confidence)
    assert row is not None  # callers pass a fact they read in this transaction
    return WorldFactRow.of(row)


async def retire(conn: asyncpg.Connection, old_id: uuid.UUID, new_id: uuid.UUID) -> None:
    await conn.execute("UPDATE world_facts SET retired_at = clock_timestamp(), "
                       "superseded_by = $2 WHERE id = $1", old_id, new_id)


async def insert(conn: asyncpg.Connection, ns: str, entity: str, attribute: str, value: str,
                 norm_value: str, url: str, quote: str, freshness: str, confidence: float,
                 principal: str, embedding: np.ndarray | None) -> WorldFactRow:
    row = await conn.fetchrow(
        f"""INSERT INTO world_facts (namespace, id, entity, attribute, value, norm_value,
               source_url, source_quote, freshness, confidence, writer_principal, embedding)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           RETURNING {WORLD_COLUMNS}""",
        ns, uuid.uuid4(), entity, attribute, value, norm_value, url, quote, freshness,
        confidence, principal, embedding)
    assert row is not None  # INSERT ... RETURNING yields the row
    return WorldFactRow.of(row)
