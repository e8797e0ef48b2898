"""`engram export` / `engram import`: one or all namespaces as JSONL.

The file is every namespaced row of every service schema (memory entries
with versions, links and tombstones, episodes, documents and their chunks
and vectors; cortex facts with their history, evidence, conflicts, graph,
world facts, outcomes and lessons; the board; the dreamer's runs and
proposals; and each schema's hash-chained audit rows), one JSON object per
line, after a header line that names the format, the namespaces, each
schema's migration ledger, the signer and the audit key's id, and before a
seal line (export_seal: a digest of the file signed by the stack; never the
audit key itself). Transport state (outboxes) is not exported. The file is
as sensitive as the bank itself.

An import checks the seal and its signer first (export_seal), then goes
into a stack whose migrations match the header, into
exactly the namespaces the operator names (those the header lists, holding
no rows there yet), in one transaction: it either lands whole or not at
all. The file is checked first and the loaded rows again before the commit
(import_check); serial ids are renumbered (import_load), other ids and
values are kept; generated columns (full-text vectors) are recomputed; the
load runs with triggers off, as a restore does, so derived counters such as
the BM25 term statistics come from the file, not from a recount."""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from engram_cli.audit.chains import AUDITED, admin_dsn
from engram_cli.audit.key import AuditKeyMissing, stack_audit_key
from engram_cli.portable import export_seal, import_check, import_load
from engram_cli.portable.import_check import ImportRefused, Table
from engram_cli.progress import track
from engram_cli.settings import CliSettings, from_args
from engram_kit import audit
from engram_runner.files import open_private

FORMAT = "engram-export/2"
SCHEMAS = ("memory", "cortex", "coordination", "dreamer")
# idempotency: replies to retries, naming ids an import re-keys; they expire anyway
SKIP_TABLES = {"outbox", "schema_migrations", "idempotency"}
IMPORT_PRINCIPAL = "engram import"


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
    sealer = export_seal.Sealer()
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
                      "signer": export_seal.signer(audit_key),
                      "audit_key_id": export_seal.key_id(audit_key)}
            with open_private(path) as out:
                out.write(sealer.line(json.dumps(header)))
                for schema, table, cols in track(tables, "export", len(tables), "table"):
                    select = ", ".join(f'"{c}"' for c in cols)
                    rows = await conn.fetch(
                        f'SELECT to_jsonb(r) AS row FROM (SELECT {select} FROM "{schema}"."{table}"'
                        f" WHERE namespace = ANY($1::text[])) r", namespaces)
                    for r in rows:
                        out.write(sealer.line(json.dumps({"schema": schema, "table": table,
                                                          "row": json.loads(r["row"])})))
                    if rows:
                        counts[f"{schema}.{table}"] = len(rows)
                out.write(sealer.seal(audit_key))
    finally:
        await conn.close()
    return counts


def _check_audit_key(header: dict, audit_key: str, foreign_digests: bool) -> None:
    """Digests of content (tombstones, audit rows, mail) cannot be re-keyed:
    the content behind most of them is gone. Under another key they silently
    match nothing, so such a file is refused unless the operator accepts that."""
    same = hmac.compare_digest(str(header.get("audit_key_id", "")).encode(),
                               export_seal.key_id(audit_key).encode())
    if not same and not foreign_digests:
        raise ImportRefused(
            "the export was made under another audit key than this stack's; its digests "
            "(tombstones, audit rows, mail) cannot be re-keyed. Either give this stack the "
            "exporting stack's ENGRAM_AUDIT_HMAC_KEY before its first start (copied by you, "
            "never in the file), or import with --keep-foreign-digests: forgotten words "
            "stored again are then not recognised for the imported tombstones")


async def import_(dsn: str, path: Path, named: list[str], audit_key: str,
                  trusted: tuple[str, ...] = (), foreign_digests: bool = False
                  ) -> tuple[dict[str, int], str]:
    """Load the file; returns the row counts and the signer's fingerprint."""
    header = next((item for _, item in import_check.read(path)), None)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ImportRefused(f"not an engram export (expected a {FORMAT} header line)")
    seal_line, digest, seal = export_seal.read_seal(path)
    signed_by = export_seal.check(header, digest, seal, audit_key, list(trusted))
    _check_audit_key(header, audit_key, foreign_digests)
    conn = await asyncpg.connect(dsn)
    try:
        if await _ledger(conn) != header.get("migrations"):
            raise ImportRefused("the export was made by a stack with other migrations than "
                                "this one; upgrade the older side first")
        namespaces = import_check.targets(header, named)
        tables = await import_check.catalog(conn, SCHEMAS, SKIP_TABLES)
        check = import_check.RowCheck(tables, namespaces)
        lines = 0
        for n, item in track(_rows(path, seal_line), "import: check"):
            check.line(n, item)
            lines += 1
        if check.problems:
            raise ImportRefused("the file has problems", check.problems)
        async with conn.transaction():
            await _refuse_occupied(conn, tables, namespaces)
            # Triggers off for the load, as pg_restore does: rows arrive as they were.
            # That turns FK checks off too: import_check.foreign_keys does them after.
            await conn.execute("SET LOCAL session_replication_role = replica")
            again = export_seal.LineDigest(seal_line)
            counts = await import_load.load(conn, tables, track(
                _rechecked(path, seal_line, import_check.RowCheck(tables, namespaces), again),
                "import: load", lines))
            if again.digest.hexdigest() != digest:
                raise ImportRefused("the file changed while it was imported")
            problems = (await import_check.foreign_keys(conn, tables, namespaces)
                        + await import_check.audit_chains(
                            conn, tables, namespaces,
                            lambda label, col, ids: import_load.origins(conn, label, col, ids)))
            if problems:
                raise ImportRefused("the loaded rows do not hold together", problems)
            await _record_import(conn, namespaces, signed_by, digest, sum(counts.values()))
    finally:
        await conn.close()
    return counts, signed_by


async def _record_import(conn: asyncpg.Connection, namespaces: set[str], signed_by: str,
                         digest: str, rows: int) -> None:
    """Each imported namespace's chains go on under this stack with a row
    naming the file (its digest) and its signer: what came from elsewhere,
    and on whose word, stays on the record."""
    for schema, extra in AUDITED.items():
        await conn.execute(f"SET LOCAL search_path TO {import_check.ident(schema)}")
        for ns in sorted(namespaces):
            await audit.append(conn, ns, IMPORT_PRINCIPAL, "import", signed_by,
                               {"file_sha256": digest, "rows": rows},
                               {column: "" for column in extra})


def _rows(path: Path, seal_line: int, digest: export_seal.LineDigest | None = None
          ) -> Iterator[tuple[int, Any]]:
    """The lines between the header and the seal."""
    lines = import_check.read(path, digest.add if digest else None)
    next(lines, None)
    for n, item in lines:
        if n < seal_line:
            yield n, item


async def _refuse_occupied(conn: asyncpg.Connection, tables: dict[tuple[str, str], Table],
                           namespaces: set[str]) -> None:
    for table in tables.values():
        taken = await conn.fetchval(
            f"SELECT namespace FROM {table.qualified} WHERE namespace = ANY($1::text[])"
            " LIMIT 1", sorted(namespaces))
        if taken is not None:
            raise ImportRefused(f"namespace {taken!r} already has rows here ({table.label}); "
                                "import into namespaces that are empty on this stack")


def _rechecked(path: Path, seal_line: int, check: import_check.RowCheck,
               digest: export_seal.LineDigest) -> Iterator[tuple[int, Any]]:
    """The rows again, checked again as read: the file may have changed since."""
    for n, item in _rows(path, seal_line, digest):
        check.line(n, item)
        if check.problems:
            raise ImportRefused("the file changed while it was imported", check.problems)
        yield n, item


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
                     f"to {path}, signed by {export_seal.fingerprint(export_seal.signer(key))}\n")
    return 0


def run_import(settings: CliSettings, database_url: str, source: str,
               namespaces: list[str], trusted: tuple[str, ...] = (),
               foreign_digests: bool = False) -> int:
    path = Path(source)
    if not path.is_file():
        sys.stderr.write(f"error: no export file at {path}\n")
        return 2
    try:
        dsn = admin_dsn(settings, database_url)
        counts, signed_by = asyncio.run(import_(
            dsn, path, namespaces, stack_audit_key(settings, database_url), trusted,
            foreign_digests))
    except AuditKeyMissing as exc:
        sys.stderr.write(f"error: import needs the stack's audit key: {exc}\n")
        return 2
    except ImportRefused as exc:
        sys.stderr.write(f"error: import refused, nothing changed: {exc.report()}\n")
        return 2
    except (OSError, asyncpg.PostgresError) as exc:
        sys.stderr.write(f"error: import failed, nothing changed: {exc}\n")
        return 2
    sys.stdout.write(f"imported {sum(counts.values())} rows into {len(counts)} tables "
                     f"(signed by {signed_by})\n")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    exp = sub.add_parser("export", help="write one or all namespaces as JSONL")
    exp.add_argument("--namespace", action="append", default=[],
                     help="namespace to export (repeatable; default: all)")
    exp.add_argument("--out", required=True, help="the JSONL file to write")
    imp = sub.add_parser("import", help="load an export into empty namespaces of this stack")
    imp.add_argument("file")
    imp.add_argument("--namespace", action="append", default=[],
                     help="namespace to import (repeatable; exactly those the file holds)")
    imp.add_argument("--trust-signer", action="append", default=[], metavar="FINGERPRINT",
                     help="accept a file signed by this stack (`engram audit key-id` there)")
    imp.add_argument("--keep-foreign-digests", action="store_true",
                     help="import a file made under another audit key; its content digests "
                          "then match nothing here")
    for cmd in (exp, imp):
        cmd.add_argument("--data-dir")
        cmd.add_argument("--database-url", default="",
                         help="admin Postgres URL (default: the embedded stack's)")
    exp.set_defaults(func=lambda a: run_export(from_args(a), a.database_url, a.namespace, a.out))
    imp.set_defaults(func=lambda a: run_import(from_args(a), a.database_url, a.file,
                                               a.namespace, tuple(a.trust_signer),
                                               a.keep_foreign_digests))
