"""Batch journals: what one batch of writes (a dream pass) changed in a
slot, as row images, and the exact revert of it.

A write in a batch snapshots its slot's rows before and after; the diff is
journaled. Reverting checks every touched row still equals its post-image
(otherwise a later write depends on it and the revert is refused, naming
the rows), then deletes inserted rows and restores updated ones."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound

from . import repo

KEYS = {"facts": ("id",), "conflicts": ("id",), "tombstones": ("entity", "attribute",
                                                              "norm_value"),
        "slots": ("entity", "attribute"), "entities": ("name",), "lessons": ("id",)}
DELETE_ORDER = ("conflicts", "tombstones", "facts", "slots", "entities", "lessons")
Snapshot = dict[tuple[str, str], dict[str, Any]]


async def snapshot(conn: asyncpg.Connection, entity: str, attribute: str) -> Snapshot:
    """Every row a write to this slot can touch, keyed by (table, key)."""
    queries = {
        "facts": ("SELECT to_jsonb(f) FROM facts f WHERE entity = $1 AND attribute = $2",
                  (entity, attribute)),
        "conflicts": ("""SELECT to_jsonb(c) FROM conflicts c WHERE fact_a IN (SELECT id FROM
                         facts WHERE entity = $1 AND attribute = $2) OR fact_b IN (SELECT id
                         FROM facts WHERE entity = $1 AND attribute = $2)""",
                      (entity, attribute)),
        "tombstones": ("SELECT to_jsonb(t) FROM tombstones t WHERE entity = $1 "
                       "AND attribute = $2", (entity, attribute)),
        "slots": ("SELECT to_jsonb(s) FROM slots s WHERE entity = $1 AND attribute = $2",
                  (entity, attribute)),
        "entities": ("SELECT to_jsonb(e) FROM entities e WHERE name = $1", (entity,)),
    }
    out: Snapshot = {}
    for table, (sql, args) in queries.items():
        out |= _keyed(table, await conn.fetch(sql, *args))
    return out


async def rows(conn: asyncpg.Connection, table: str, ids: list[uuid.UUID]) -> Snapshot:
    """Row images of a table keyed by id (e.g. lessons a merge touches)."""
    return _keyed(table, await conn.fetch(
        f"SELECT to_jsonb(t) FROM {table} t WHERE id = ANY($1::uuid[])", ids))


def _keyed(table: str, images: list[asyncpg.Record]) -> Snapshot:
    out: Snapshot = {}
    for (image,) in images:
        row = json.loads(image)
        out[(table, json.dumps([row[k] for k in KEYS[table]]))] = row
    return out


async def record(conn: asyncpg.Connection, ns: str, batch: str, before: Snapshot,
                 after: Snapshot) -> int:
    await conn.execute("INSERT INTO batches (namespace, batch) VALUES ($1, $2) "
                       "ON CONFLICT DO NOTHING", ns, batch)
    n = 0
    for (table, key), row in after.items():
        pre = before.get((table, key))
        if pre == row:
            continue
        await conn.execute(
            """INSERT INTO journal (namespace, batch, tbl, op, row_key, pre_image, post_image)
               VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb)""",
            ns, batch, table, "insert" if pre is None else "update", key,
            None if pre is None else json.dumps(pre), json.dumps(row))
        n += 1
    return n


@dataclass(frozen=True)
class Reverted:
    batch: str
    rows: int


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


async def _columns(conn: asyncpg.Connection, table: str) -> set[str]:
    """The table's real, writable columns, from the catalog: journal images
    are data (an import may have written them), never identifiers."""
    rows = await conn.fetch(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0"
        " AND NOT attisdropped AND attgenerated = ''", _ident(table))
    return {r["attname"] for r in rows}


async def _current(conn: asyncpg.Connection, table: str, key: dict[str, Any]) -> Any:
    where = " AND ".join(f"{_ident(k)} = ${i + 1}" for i, k in enumerate(key))
    image = await conn.fetchval(f"SELECT to_jsonb(t) FROM {_ident(table)} t WHERE {where}",
                                *[_typed(k, v) for k, v in key.items()])
    return None if image is None else json.loads(image)


def _typed(column: str, value: Any) -> Any:
    return uuid.UUID(value) if column == "id" else value


async def _restore(conn: asyncpg.Connection, table: str, key: dict[str, Any],
                   image: dict[str, Any]) -> None:
    cols = sorted(c for c in image if c not in key)
    if not cols:
        return
    sets = ", ".join(f"{_ident(c)} = r.{_ident(c)}" for c in cols)
    where = " AND ".join(f"t.{_ident(k)} = r.{_ident(k)}" for k in key)
    await conn.execute(f"UPDATE {_ident(table)} t SET {sets} FROM jsonb_populate_record("
                       f"NULL::{_ident(table)}, $1::jsonb) r WHERE {where}", json.dumps(image))


@dataclass(frozen=True)
class _Entry:
    table: str
    key: dict[str, Any]
    op: str
    pre: dict[str, Any]  # empty for an insert
    post: dict[str, Any]


def _damaged(batch: str, what: str) -> Conflict:
    return Conflict(f"the journal of batch {batch} is damaged ({what}); not reverted. "
                    "Restore the namespace from a backup or export to undo this batch")


async def _checked(conn: asyncpg.Connection, batch: str, e: asyncpg.Record,
                   columns: dict[str, set[str]]) -> _Entry:
    """A journal row as the revert may use it: its table one the journal
    covers, its key that table's key, its images objects of real columns."""
    table = e["tbl"]
    if table not in KEYS:
        raise _damaged(batch, f"a row of unknown table {table!r:.40}")
    if table not in columns:
        columns[table] = await _columns(conn, table)
    values = json.loads(e["row_key"])
    if (not isinstance(values, list) or len(values) != len(KEYS[table])
            or not all(isinstance(v, str) for v in values)):
        raise _damaged(batch, f"a {table} row key is not {'/'.join(KEYS[table])}")
    key = dict(zip(KEYS[table], values, strict=True))
    try:
        for k, v in key.items():
            _typed(k, v)
    except ValueError:
        raise _damaged(batch, f"a {table} row key is not {'/'.join(KEYS[table])}") from None
    pre = None if e["pre_image"] is None else json.loads(e["pre_image"])
    post = json.loads(e["post_image"])
    for image in (post,) if pre is None and e["op"] == "insert" else (pre, post):
        if not isinstance(image, dict):
            raise _damaged(batch, f"a {table} row image is not an object")
        unknown = sorted(set(image) - columns[table])
        if unknown:
            raise _damaged(batch, f"a {table} row image names a column {table} does not "
                                  f"have: {unknown[0]!r:.60}")
    return _Entry(table, key, e["op"], pre or {}, post)


async def revert(pool: asyncpg.Pool, ctx: CallerContext, batch: str) -> Reverted:
    ns = ctx.require_namespace()
    if not batch.strip():
        raise InvalidArgument("batch is required", field="batch")
    async with tenant_tx(pool, ns) as conn:
        state = await conn.fetchrow("SELECT * FROM batches WHERE batch = $1 FOR UPDATE", batch)
        if state is None:
            raise NotFound(f"no journal for batch {batch}")
        if state["status"] == "reverted":
            raise Conflict(f"batch {batch} was already reverted")
        entries = await conn.fetch("SELECT * FROM journal WHERE batch = $1 ORDER BY seq", batch)
        columns: dict[str, set[str]] = {}
        final: dict[tuple[str, str], _Entry] = {}
        first: dict[tuple[str, str], _Entry] = {}
        for e in entries:
            entry = await _checked(conn, batch, e, columns)
            final[(entry.table, e["row_key"])] = entry
            first.setdefault((entry.table, e["row_key"]), entry)
        changed = []
        for entry in final.values():
            if await _current(conn, entry.table, entry.key) != entry.post:
                changed.append(f"{entry.table} {'/'.join(map(str, entry.key.values()))}")
        if changed:
            raise Conflict("later writes depend on this batch; not reverted. Changed since: "
                           + "; ".join(changed[:10]))
        ordered = sorted(first.values(), key=lambda entry: DELETE_ORDER.index(entry.table))
        for entry in ordered:
            if entry.op == "insert":
                where = " AND ".join(f"{_ident(k)} = ${i + 1}" for i, k in enumerate(entry.key))
                await conn.execute(f"DELETE FROM {_ident(entry.table)} WHERE {where}",
                                   *[_typed(k, v) for k, v in entry.key.items()])
            else:
                await _restore(conn, entry.table, entry.key, entry.pre)
        await conn.execute("UPDATE batches SET status = 'reverted', reverted_at = "
                           "clock_timestamp(), reverted_by = $2 WHERE batch = $1",
                           batch, ctx.principal)
        await repo.audit(conn, ns, ctx.principal, "batch.revert", batch,
                         {"rows": len(first)})
        return Reverted(batch, len(first))
