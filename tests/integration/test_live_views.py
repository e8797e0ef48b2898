"""Each `live_<table>` view (memory.live_entries, cortex.live_facts, ...)
is its table's rows, every column: Postgres expands a view's `SELECT *` when
the view is made, so a column added to the table later is missing from the
view until a migration re-creates it, and code that reads the view gets
rows without it. Read from the real stack's catalog after every migration
has run."""

from __future__ import annotations

import dataclasses

import asyncpg
import pytest

from engram_cortex.rows import (
    UNREAD_FACT_COLUMNS,
    UNREAD_LESSON_COLUMNS,
    UNREAD_WORLD_COLUMNS,
    FactRow,
    LessonRow,
    WorldFactRow,
)
from engram_memory.rows import EXPRESSIONS, UNREAD_ENTRY_COLUMNS, FullEntryRow

VIEWS_SQL = """
SELECT v.table_schema, v.table_name FROM information_schema.views v
 WHERE v.table_name LIKE 'live\\_%' AND v.table_schema NOT IN ('pg_catalog', 'information_schema')
"""
COLUMNS_SQL = """
SELECT column_name, data_type, udt_name FROM information_schema.columns
 WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position
"""


async def test_every_live_view_carries_every_column_of_its_table(admin_dsn: str):
    conn = await asyncpg.connect(admin_dsn)
    try:
        views = [(r["table_schema"], r["table_name"]) for r in await conn.fetch(VIEWS_SQL)]
        assert ("memory", "live_entries") in views and ("cortex", "live_facts") in views, views
        missing = {}
        for schema, view in views:
            table = view.removeprefix("live_")
            columns = [tuple(r) for r in await conn.fetch(COLUMNS_SQL, schema, table)]
            assert columns, f"{schema}.{view}: no table {schema}.{table}"
            shown = [tuple(r) for r in await conn.fetch(COLUMNS_SQL, schema, view)]
            if shown != columns:
                missing[f"{schema}.{view}"] = sorted(set(columns) ^ set(shown))
    finally:
        await conn.close()
    assert missing == {}


NULLABLE_SQL = """
SELECT column_name, is_nullable = 'YES' AS nullable FROM information_schema.columns
 WHERE table_schema = $2 AND table_name = $1
"""


async def test_memory_entry_rows_carry_every_column_of_entries(admin_dsn: str):
    """Each column of memory.entries (and so of live_entries) is a field of
    the typed rows reads return (engram_memory.rows) or is named unread;
    a field may be None where its column is nullable."""
    conn = await asyncpg.connect(admin_dsn)
    try:
        tables = {t: {r["column_name"]: r["nullable"]
                      for r in await conn.fetch(NULLABLE_SQL, t, "memory")}
                  for t in ("entries", "live_entries")}
    finally:
        await conn.close()
    fields = {f.name: str(f.type) for f in dataclasses.fields(FullEntryRow)
              if f.name not in EXPRESSIONS}
    for table, columns in tables.items():
        assert set(columns) == set(fields) | UNREAD_ENTRY_COLUMNS, (
            table, sorted(set(columns) - set(fields) - UNREAD_ENTRY_COLUMNS),
            sorted((set(fields) | UNREAD_ENTRY_COLUMNS) - set(columns)))
    nullable = tables["entries"]
    assert {name for name, hint in fields.items() if nullable[name] and "None" not in hint} \
        == set()


@pytest.mark.parametrize(("table", "row_type", "unread"), [
    ("facts", FactRow, UNREAD_FACT_COLUMNS),
    ("world_facts", WorldFactRow, UNREAD_WORLD_COLUMNS),
    ("lessons", LessonRow, UNREAD_LESSON_COLUMNS),
])
async def test_cortex_rows_carry_every_column_of_their_table(
        admin_dsn: str, table: str, row_type: type, unread: frozenset[str]):
    """Each column of cortex.facts (and so of live_facts), of
    cortex.world_facts (live_world_facts) and of cortex.lessons
    (live_lessons), is a field of its row type
    (engram_cortex.rows) or is named unread; a field may be None where its
    column is nullable."""
    conn = await asyncpg.connect(admin_dsn)
    try:
        tables = {t: {r["column_name"]: r["nullable"]
                      for r in await conn.fetch(NULLABLE_SQL, t, "cortex")}
                  for t in (table, f"live_{table}")}
    finally:
        await conn.close()
    fields = {f.name: str(f.type) for f in dataclasses.fields(row_type)}
    for name, columns in tables.items():
        assert set(columns) == set(fields) | unread, (
            name, sorted(set(columns) - set(fields) - unread),
            sorted((set(fields) | unread) - set(columns)))
    nullable = tables[table]
    assert {name for name, hint in fields.items() if nullable[name] and "None" not in hint} \
        == set()
