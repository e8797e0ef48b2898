"""Loading checked rows for `engram import`, renumbering serial ids.

Serial ids (audit ids, entry version ids, journal and queue sequence
numbers) come from sequences shared by every namespace of a bank. The file's
values are not kept: each row gets the next value of this stack's sequence,
in the order of its original value, so order (an audit chain's, a queue's)
is kept, ids never collide with another namespace's, and no file moves a
shared sequence further than its own row count. The original value and line
of each renumbered row stay in a temporary table, so problems found after
the load can be reported as the file has them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import asyncpg

from engram_cli.portable.import_check import ImportRefused, Problem, Table, ident

STAGE = "import_stage"
REKEY = "import_rekey"


async def load(conn: asyncpg.Connection, tables: dict[tuple[str, str], Table],
               lines: Iterable[tuple[int, dict[str, Any]]]) -> dict[str, int]:
    """Insert checked rows; only catalog column names reach the SQL."""
    await conn.execute(f"CREATE TEMP TABLE {STAGE} (tbl text, line int, row jsonb)"
                       " ON COMMIT DROP")
    await conn.execute(f"CREATE TEMP TABLE {REKEY} (tbl text, col text, line int, old bigint,"
                       " new bigint) ON COMMIT DROP")
    counts: dict[str, int] = {}
    for n, item in lines:
        table = tables[(item["schema"], item["table"])]
        try:
            if table.serial:
                # Through the row type, so a bad value is refused with its line.
                await conn.execute(
                    f"INSERT INTO {STAGE} SELECT $1, $2, $3::jsonb"
                    f" FROM jsonb_populate_record(NULL::{table.qualified}, $3::jsonb)",
                    table.label, n, json.dumps(item["row"]))
            else:
                cols = ", ".join(ident(c) for c in table.columns)
                await conn.execute(
                    f"INSERT INTO {table.qualified} ({cols}) SELECT {cols}"
                    f" FROM jsonb_populate_record(NULL::{table.qualified}, $1::jsonb)",
                    json.dumps(item["row"]))
        except asyncpg.PostgresError as exc:
            raise _refused(f"line {n} {table.label}", exc) from None
        counts[table.label] = counts.get(table.label, 0) + 1
    for table in tables.values():
        if table.serial and table.label in counts:
            await _renumbered(conn, table)
    return counts


def _refused(where: str, exc: asyncpg.PostgresError) -> ImportRefused:
    detail = getattr(exc, "detail", None)
    return ImportRefused("a row could not be loaded",
                         [Problem(where, f"{exc}" + (f" ({detail})" if detail else ""))])


async def _renumbered(conn: asyncpg.Connection, table: Table) -> None:
    """Insert a serial table's staged rows with fresh ids in their old order."""
    for column, seq in table.serial.items():
        await conn.execute(
            f"INSERT INTO {REKEY} (tbl, col, line, old, new) SELECT $1, $2, o.line, o.old,"
            " nextval($3::regclass) FROM (SELECT line, (row->>$2)::bigint AS old"
            f" FROM {STAGE} WHERE tbl = $1 ORDER BY 2, 1) o", table.label, column, seq)
    cols = ", ".join(ident(c) for c in table.columns)
    picked = ", ".join(f"r.{ident(c)}" for c in table.columns)
    try:
        await conn.execute(
            f"INSERT INTO {table.qualified} ({cols}) SELECT {picked} FROM {STAGE} s,"
            f" jsonb_populate_record(NULL::{table.qualified}, s.row || (SELECT"
            f" jsonb_object_agg(k.col, k.new) FROM {REKEY} k WHERE k.tbl = s.tbl"
            " AND k.line = s.line)) r WHERE s.tbl = $1 ORDER BY s.line", table.label)
    except asyncpg.PostgresError as exc:
        raise _refused(table.label, exc) from None


async def origins(conn: asyncpg.Connection, label: str, column: str,
                  ids: list[int]) -> dict[int, tuple[int, int]]:
    """new id -> (the file's id, its line) for rows this load renumbered."""
    rows = await conn.fetch(f"SELECT new, old, line FROM {REKEY} WHERE tbl = $1 AND col = $2"
                            " AND new = ANY($3::bigint[])", label, column, ids)
    return {r["new"]: (r["old"], r["line"]) for r in rows}
