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
from engram_kit.vocab import JournalOp

from . import repo, repo_journal

KEYS = {"facts": ("id",), "conflicts": ("id",), "tombstones": ("entity", "attribute",
                                                              "norm_value"),
        "slots": ("entity", "attribute"), "entities": ("name",), "lessons": ("id",)}
DELETE_ORDER = ("conflicts", "tombstones", "facts", "slots", "entities", "lessons")
Snapshot = dict[tuple[str, str], dict[str, Any]]


async def snapshot(conn: asyncpg.Connection, entity: str, attribute: str) -> Snapshot:
    """Every row a write to this slot can touch, keyed by (table, key)."""
    out: Snapshot = {}
    for table, images in (await repo_journal.slot_images(conn, entity, attribute)).items():
        out |= _keyed(table, images)
    return out


async def rows(conn: asyncpg.Connection, table: str, ids: list[uuid.UUID]) -> Snapshot:
    """Row images of a table keyed by id (e.g. lessons a merge touches)."""
    return _keyed(table, await repo_journal.images_by_id(conn, table, ids))


def _keyed(table: str, images: list[asyncpg.Record]) -> Snapshot:
    out: Snapshot = {}
    for (image,) in images:
        row = json.loads(image)
        out[(table, json.dumps([row[k] for k in KEYS[table]]))] = row
    return out


async def record(conn: asyncpg.Connection, ns: str, batch: str, before: Snapshot,
                 after: Snapshot) -> int:
    await repo_journal.open_batch(conn, ns, batch)
    n = 0
    for (table, key), row in after.items():
        pre = before.get((table, key))
        if pre == row:
            continue
        await repo_journal.add_entry(conn, ns, batch, table,
                                     JournalOp.INSERT if pre is None else JournalOp.UPDATE,
                                     key, pre, row)
        n += 1
    return n


@dataclass(frozen=True)
class Reverted:
    batch: str
    rows: int


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
        columns[table] = await repo_journal.columns(conn, table)
    values = json.loads(e["row_key"])
    if (not isinstance(values, list) or len(values) != len(KEYS[table])
            or not all(isinstance(v, str) for v in values)):
        raise _damaged(batch, f"a {table} row key is not {'/'.join(KEYS[table])}")
    key = dict(zip(KEYS[table], values, strict=True))
    try:
        for k, v in key.items():
            repo_journal.typed(k, v)
    except ValueError:
        raise _damaged(batch, f"a {table} row key is not {'/'.join(KEYS[table])}") from None
    pre = None if e["pre_image"] is None else json.loads(e["pre_image"])
    post = json.loads(e["post_image"])
    for image in (post,) if pre is None and e["op"] == JournalOp.INSERT else (pre, post):
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
        state = await repo_journal.lock_batch(conn, batch)
        if state is None:
            raise NotFound(f"no journal for batch {batch}")
        if state["status"] == "reverted":
            raise Conflict(f"batch {batch} was already reverted")
        entries = await repo_journal.entries(conn, batch)
        columns: dict[str, set[str]] = {}
        final: dict[tuple[str, str], _Entry] = {}
        first: dict[tuple[str, str], _Entry] = {}
        for e in entries:
            entry = await _checked(conn, batch, e, columns)
            final[(entry.table, e["row_key"])] = entry
            first.setdefault((entry.table, e["row_key"]), entry)
        changed = []
        for entry in final.values():
            if await repo_journal.current_image(conn, entry.table, entry.key) != entry.post:
                changed.append(f"{entry.table} {'/'.join(map(str, entry.key.values()))}")
        if changed:
            raise Conflict("later writes depend on this batch; not reverted. Changed since: "
                           + "; ".join(changed[:10]))
        ordered = sorted(first.values(), key=lambda entry: DELETE_ORDER.index(entry.table))
        for entry in ordered:
            if entry.op == JournalOp.INSERT:
                await repo_journal.delete_row(conn, entry.table, entry.key)
            else:
                await repo_journal.restore(conn, entry.table, entry.key, entry.pre)
        await repo_journal.mark_reverted(conn, batch, ctx.principal)
        await repo.audit(conn, ns, ctx.principal, "batch.revert", batch,
                         {"rows": len(first)})
        return Reverted(batch, len(first))
