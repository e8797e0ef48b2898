"""`engram export` / `engram import`: one or all namespaces as JSONL.

The file is every namespaced row of every service schema (memory entries
with versions, links and tombstones, episodes, documents and their chunks
and vectors; cortex facts with their history, evidence, conflicts, graph,
world facts, outcomes and lessons; the board; the dreamer's runs and
proposals; and each schema's hash-chained audit rows), one JSON object per
line, after a header line that names the format, the namespaces and each
schema's migration ledger and the stack's audit key. Transport state
(outboxes) is not exported. The file is as sensitive as the bank itself.

An import goes into a stack whose migrations match the header, into
namespaces that hold no rows there yet, in one transaction: it either lands
whole or not at all. Rows keep their ids and values (so audit chains verify
after the move); generated columns (full-text vectors) are recomputed; the
import runs with triggers off, as a restore does, so derived counters such
as the BM25 term statistics come from the file, not from a recount."""

from __future__ import annotations

import asyncio
import hmac
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

from .audit_cmd import admin_dsn
from .audit_key import AuditKeyMissing, stack_audit_key
from .files import open_private
from .settings import CliSettings

FORMAT = "engram-export/1"
SCHEMAS = ("memory", "cortex", "coordination", "dreamer")
SKIP_TABLES = {"outbox", "schema_migrations"}


class ImportRefused(Exception):
    """The bank cannot take this export (format, ledgers, existing rows)."""


async def _tables(conn: asyncpg.Connection) -> list[tuple[str, str, list[str]]]:
    """(schema, table, writable columns) of every table with a namespace column."""
    rows = await conn.fetch(
        "SELECT c.table_schema, c.table_name, array_agg(c.column_name ORDER BY c.ordinal_position)"
        " AS cols FROM information_schema.columns c JOIN information_schema.tables t"
        "   ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
        " WHERE c.table_schema = ANY($1::text[]) AND t.table_type = 'BASE TABLE'"
        "   AND c.is_generated = 'NEVER'"
        " GROUP BY 1, 2 ORDER BY 1, 2", list(SCHEMAS))
    return [(r["table_schema"], r["table_name"], list(r["cols"])) for r in rows
            if "namespace" in r["cols"] and r["table_name"] not in SKIP_TABLES]


async def _ledger(conn: asyncpg.Connection) -> dict[str, list[str]]:
    out = {}
    for schema in SCHEMAS:
        rows = await conn.fetch(
            f'SELECT version FROM "{schema}".schema_migrations ORDER BY version')
        out[schema] = [str(r["version"]) for r in rows]
    return out


async def export(dsn: str, namespaces: list[str], path: Path,
                 audit_key: str) -> dict[str, int]:
    conn = await asyncpg.connect(dsn)
    counts: dict[str, int] = {}
    try:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            tables = await _tables(conn)
            if not namespaces:
                found: set[str] = set()
                for schema, table, _ in tables:
                    found.update(r[0] for r in await conn.fetch(
                        f'SELECT DISTINCT namespace FROM "{schema}"."{table}"'))
                namespaces = sorted(found)
            header = {"format": FORMAT, "exported_at": datetime.now(UTC).isoformat(),
                      "namespaces": namespaces, "migrations": await _ledger(conn),
                      "audit_key": audit_key}
            with open_private(path) as out:
                out.write(json.dumps(header) + "\n")
                for schema, table, cols in tables:
                    select = ", ".join(f'"{c}"' for c in cols)
                    rows = await conn.fetch(
                        f'SELECT to_jsonb(r) AS row FROM (SELECT {select} FROM "{schema}"."{table}"'
                        f" WHERE namespace = ANY($1::text[])) r", namespaces)
                    for r in rows:
                        out.write(json.dumps({"schema": schema, "table": table,
                                              "row": json.loads(r["row"])}) + "\n")
                    if rows:
                        counts[f"{schema}.{table}"] = len(rows)
    finally:
        await conn.close()
    return counts


def _lines(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    raise ImportRefused(f"line {n} is not JSON") from None


def _check_audit_key(header: dict, audit_key: str) -> None:
    """Digests of content (tombstones, audit rows, mail) cannot be re-keyed:
    the content behind most of them is gone. Under another key they would
    silently match nothing, so such a file is refused."""
    if not hmac.compare_digest(str(header.get("audit_key", "")).encode(), audit_key.encode()):
        raise ImportRefused(
            "the export was made under another audit key than this stack's; its digests "
            "(tombstones, audit rows, mail) cannot be re-keyed. Import it into a stack "
            "whose ENGRAM_AUDIT_HMAC_KEY is the file's audit_key (set it in the new "
            "stack's .env or data-dir secrets.json before its first start)")


async def import_(dsn: str, path: Path, audit_key: str) -> dict[str, int]:
    lines = _lines(path)
    header = next(lines, None)
    if not header or header.get("format") != FORMAT:
        raise ImportRefused(f"not an engram export (expected a {FORMAT} header line)")
    _check_audit_key(header, audit_key)
    conn = await asyncpg.connect(dsn)
    try:
        if await _ledger(conn) != header["migrations"]:
            raise ImportRefused("the export was made by a stack with other migrations than "
                                "this one; upgrade the older side first")
        tables = {(s, t): cols for s, t, cols in await _tables(conn)}
        async with conn.transaction():
            await _refuse_occupied(conn, tables, header["namespaces"])
            # Triggers off for the load, as pg_restore does: rows arrive as they were.
            await conn.execute("SET LOCAL session_replication_role = replica")
            counts = await _load(conn, tables, lines, set(header["namespaces"]))
            await _advance_sequences(conn, list(tables))
    finally:
        await conn.close()
    return counts


async def _refuse_occupied(conn: asyncpg.Connection, tables: dict, namespaces: list[str]) -> None:
    for schema, table in tables:
        taken = await conn.fetchval(
            f'SELECT namespace FROM "{schema}"."{table}" WHERE namespace = ANY($1::text[])'
            " LIMIT 1", namespaces)
        if taken is not None:
            raise ImportRefused(f"namespace {taken!r} already has rows here ({schema}.{table}); "
                                "import into namespaces that are empty on this stack")


async def _load(conn: asyncpg.Connection, tables: dict, lines: Iterator[dict],
                namespaces: set[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n, item in enumerate(lines, start=2):
        key = (item.get("schema"), item.get("table"))
        row = item.get("row")
        if key not in tables or not isinstance(row, dict):
            raise ImportRefused(f"line {n}: unknown table {key[0]}.{key[1]}")
        if row.get("namespace") not in namespaces:
            raise ImportRefused(f"line {n}: a row of namespace {row.get('namespace')!r}, "
                                "which the header does not list")
        cols = ", ".join(f'"{c}"' for c in tables[key])
        await conn.execute(
            f'INSERT INTO "{key[0]}"."{key[1]}" ({cols}) SELECT {cols}'
            f' FROM jsonb_populate_record(NULL::"{key[0]}"."{key[1]}", $1::jsonb)',
            json.dumps(row))
        counts[f"{key[0]}.{key[1]}"] = counts.get(f"{key[0]}.{key[1]}", 0) + 1
    return counts


async def _advance_sequences(conn: asyncpg.Connection, tables: list[tuple[str, str]]) -> None:
    """Serial ids came from the file: move each sequence past them."""
    for schema, table in tables:
        for r in await conn.fetch(
                "SELECT a.attname, pg_get_serial_sequence($1, a.attname) AS seq"
                " FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0"
                " AND NOT a.attisdropped", f'"{schema}"."{table}"'):
            if r["seq"]:
                await conn.execute(
                    f"SELECT setval($1, greatest((SELECT max(\"{r['attname']}\")"
                    f' FROM "{schema}"."{table}"), 1))', r["seq"])


def run_export(settings: CliSettings, database_url: str, namespaces: list[str],
               out: str) -> int:
    path = Path(out)
    try:
        dsn = admin_dsn(settings, database_url)
        key = stack_audit_key(settings, database_url)
        counts = asyncio.run(export(dsn, namespaces, path, key))
    except AuditKeyMissing as exc:
        sys.stderr.write(f"error: export needs the stack's audit key: {exc}\n")
        return 2
    except (OSError, asyncpg.PostgresError) as exc:
        sys.stderr.write(f"error: export failed: {exc}\n")
        return 2
    sys.stdout.write(f"exported {sum(counts.values())} rows from {len(counts)} tables "
                     f"to {path}\n")
    return 0


def run_import(settings: CliSettings, database_url: str, source: str) -> int:
    path = Path(source)
    if not path.is_file():
        sys.stderr.write(f"error: no export file at {path}\n")
        return 2
    try:
        dsn = admin_dsn(settings, database_url)
        counts = asyncio.run(import_(dsn, path, stack_audit_key(settings, database_url)))
    except AuditKeyMissing as exc:
        sys.stderr.write(f"error: import needs the stack's audit key: {exc}\n")
        return 2
    except ImportRefused as exc:
        sys.stderr.write(f"error: import refused, nothing changed: {exc}\n")
        return 2
    except (OSError, asyncpg.PostgresError) as exc:
        sys.stderr.write(f"error: import failed, nothing changed: {exc}\n")
        return 2
    sys.stdout.write(f"imported {sum(counts.values())} rows into {len(counts)} tables\n")
    return 0
