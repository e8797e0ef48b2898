"""SQL for batch journals: row images, the journal and its batches. The
caller owns the transaction. Table and column names reach SQL only through
`ident` and only after the caller checked them against KEYS or the catalog."""

from __future__ import annotations

import json
import uuid
from typing import Any

import asyncpg

SLOT_IMAGES = {
    "facts": ("SELECT to_jsonb(f) FROM facts f WHERE entity = $1 AND attribute = $2", 2),
    "conflicts": ("""SELECT to_jsonb(c) FROM conflicts c WHERE fact_a IN (SELECT id FROM
                     facts WHERE entity = $1 AND attribute = $2) OR fact_b IN (SELECT id
                     FROM facts WHERE entity = $1 AND attribute = $2)""", 2),
    "tombstones": ("SELECT to_jsonb(t) FROM tombstones t WHERE entity = $1 "
                   "AND attribute = $2", 2),
    "slots": ("SELECT to_jsonb(s) FROM slots s WHERE entity = $1 AND attribute = $2", 2),
    "entities": ("SELECT to_jsonb(e) FROM entities e WHERE name = $1", 1),
}


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def typed(column: str, value: Any) -> Any:
    return uuid.UUID(value) if column == "id" else value


async def slot_images(conn: asyncpg.Connection, entity: str,
                      attribute: str) -> dict[str, list[asyncpg.Record]]:
    """Every row a write to this slot can touch, per table."""
    out = {}
    for table, (sql, n) in SLOT_IMAGES.items():
        out[table] = await conn.fetch(sql, *(entity, attribute)[:n])
    return out


async def images_by_id(conn: asyncpg.Connection, table: str,
                       ids: list[uuid.UUID]) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"SELECT to_jsonb(t) FROM {ident(table)} t WHERE id = ANY($1::uuid[])", ids)


async def open_batch(conn: asyncpg.Connection, ns: str, batch: str) -> None:
    await conn.execute("INSERT INTO batches (namespace, batch) VALUES ($1, $2) "
                       "ON CONFLICT DO NOTHING", ns, batch)


async def add_entry(conn: asyncpg.Connection, ns: str, batch: str, table: str, op: str,
                    key: str, pre: dict[str, Any] | None, post: dict[str, Any]) -> None:
    await conn.execute(
        """INSERT INTO journal (namespace, batch, tbl, op, row_key, pre_image, post_image)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb)""",
        ns, batch, table, op, key, None if pre is None else json.dumps(pre), json.dumps(post))


async def columns(conn: asyncpg.Connection, table: str) -> set[str]:
    """The table's real, writable columns, from the catalog."""
    rows = await conn.fetch(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0"
        " AND NOT attisdropped AND attgenerated = ''", ident(table))
    return {r["attname"] for r in rows}


def _where(key: dict[str, Any], prefix: str = "") -> str:
    return " AND ".join(f"{prefix}{ident(k)} = ${i + 1}" for i, k in enumerate(key))


async def current_image(conn: asyncpg.Connection, table: str,
                        key: dict[str, Any]) -> dict[str, Any] | None:
    image = await conn.fetchval(f"SELECT to_jsonb(t) FROM {ident(table)} t WHERE {_where(key)}",
                                *[typed(k, v) for k, v in key.items()])
    return None if image is None else json.loads(image)


async def restore(conn: asyncpg.Connection, table: str, key: dict[str, Any],
                  image: dict[str, Any]) -> None:
    cols = sorted(c for c in image if c not in key)
    if not cols:
        return
    sets = ", ".join(f"{ident(c)} = r.{ident(c)}" for c in cols)
    where = " AND ".join(f"t.{ident(k)} = r.{ident(k)}" for k in key)
    await conn.execute(f"UPDATE {ident(table)} t SET {sets} FROM jsonb_populate_record("
                       f"NULL::{ident(table)}, $1::jsonb) r WHERE {where}", json.dumps(image))


async def delete_row(conn: asyncpg.Connection, table: str, key: dict[str, Any]) -> None:
    await conn.execute(f"DELETE FROM {ident(table)} WHERE {_where(key)}",
                       *[typed(k, v) for k, v in key.items()])


async def lock_batch(conn: asyncpg.Connection, batch: str) -> asyncpg.Record | None:
    return await conn.fetchrow("SELECT * FROM batches WHERE batch = $1 FOR UPDATE", batch)


async def entries(conn: asyncpg.Connection, batch: str) -> list[asyncpg.Record]:
    return await conn.fetch("SELECT * FROM journal WHERE batch = $1 ORDER BY seq", batch)


async def mark_reverted(conn: asyncpg.Connection, batch: str, principal: str) -> None:
    await conn.execute("UPDATE batches SET status = 'reverted', reverted_at = "
                       "clock_timestamp(), reverted_by = $2 WHERE batch = $1",
                       batch, principal)
