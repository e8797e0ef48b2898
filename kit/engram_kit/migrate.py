"""Forward-only SQL migrations, one schema per service, under an advisory lock.

Run with an admin connection: it creates the service's runtime role (no
superuser, no BYPASSRLS) and schema, applies `NNNN_name.sql` files in order,
records them in `<schema>.schema_migrations`, and grants the runtime role DML
rights only. Tables are owned by the admin role, so the runtime role cannot
disable row-level security.

A landed migration never changes. Each migrations directory holds a
`migrations.lock` (JSON: file name -> its sha256, and the checksums of any
earlier text it was applied with, "superseded"). The runner refuses a landed
file whose text differs from its lock, and a database whose ledger records
a checksum that is neither the file's nor a superseded one; a superseded
checksum is accepted because a later migration repairs what that text left.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import asyncpg

log = logging.getLogger(__name__)

LOCK_NAME = "migrations.lock"


class MigrationChanged(RuntimeError):
    """A landed migration's text is not the one databases were built with."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def filename(self) -> str:
        return f"{self.version:04d}_{self.name}.sql"

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations(directory: Path) -> list[Migration]:
    found = []
    for path in sorted(directory.glob("*.sql")):
        number, _, name = path.stem.partition("_")
        found.append(Migration(int(number), name, path.read_text()))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise ValueError(f"duplicate migration numbers in {directory}")
    return found


def load_lock(directory: Path) -> dict[str, dict]:
    path = directory / LOCK_NAME
    if not path.exists():
        return {}
    return json.loads(path.read_text())


def check_against_lock(directory: Path, migrations: list[Migration],
                       lock: dict[str, dict]) -> None:
    """Refuse a landed file whose text changed: add a new migration instead."""
    for m in migrations:
        entry = lock.get(m.filename)
        if entry is not None and entry["sha256"] != m.checksum:
            raise MigrationChanged(
                f"{directory / m.filename} differs from its checksum in {LOCK_NAME}: "
                "a landed migration never changes; restore it and add a new numbered one")


def update_lock(directory: Path) -> list[str]:
    """Record files not yet in the lock; returns their names. Never rewrites an entry."""
    lock = load_lock(directory)
    added = []
    for m in load_migrations(directory):
        if m.filename not in lock:
            lock[m.filename] = {"sha256": m.checksum}
            added.append(m.filename)
    (directory / LOCK_NAME).write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n")
    return added


def role_from_dsn(dsn: str) -> tuple[str, str]:
    parsed = urlparse(dsn)
    if not parsed.username or not parsed.password:
        raise ValueError("the service database URL must name a user and a password")
    return unquote(parsed.username), unquote(parsed.password)


async def _ensure_role(conn: asyncpg.Connection, role: str, password: str) -> None:
    exists = await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", role)
    verb = "ALTER" if exists else "CREATE"
    # Identifiers and the password cannot be bound parameters in DDL.
    quoted_pw = password.replace("'", "''")
    await conn.execute(
        f'{verb} ROLE "{role}" LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE '
        f"PASSWORD '{quoted_pw}'"
    )


async def apply_migrations(admin_dsn: str, service_dsn: str, schema: str,
                           directory: Path) -> list[int]:
    """Apply pending migrations; returns the versions applied now."""
    role, password = role_from_dsn(service_dsn)
    migrations = load_migrations(directory)
    lock = load_lock(directory)
    check_against_lock(directory, migrations, lock)
    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.execute("SELECT pg_advisory_lock(hashtext('engram.migrate'))")
        try:
            return await _apply_locked(conn, role, password, schema, migrations, lock)
        finally:
            await conn.execute("SELECT pg_advisory_unlock(hashtext('engram.migrate'))")
    finally:
        await conn.close()


async def _apply_locked(conn: asyncpg.Connection, role: str, password: str, schema: str,
                        migrations: list[Migration], lock: dict[str, dict]) -> list[int]:
    await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    await _ensure_role(conn, role, password)
    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    await conn.execute(
        f'CREATE TABLE IF NOT EXISTS "{schema}".schema_migrations ('
        "version int PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, "
        "applied_at timestamptz NOT NULL DEFAULT now())"
    )
    rows = await conn.fetch(f'SELECT version, checksum FROM "{schema}".schema_migrations')
    done = {r["version"]: r["checksum"] for r in rows}
    applied = []
    for m in migrations:
        if m.version in done:
            _check_applied(schema, m, done[m.version], lock)
            continue
        async with conn.transaction():
            await conn.execute(f'SET LOCAL search_path TO "{schema}", public')
            await conn.execute(m.sql)
            await conn.execute(
                f'INSERT INTO "{schema}".schema_migrations (version, name, checksum) '
                "VALUES ($1, $2, $3)", m.version, m.name, m.checksum,
            )
        applied.append(m.version)
        log.info("migration applied", extra={"fields": {"schema": schema, "version": m.version}})
    await _grant(conn, role, schema)
    return applied


def _check_applied(schema: str, m: Migration, recorded: str, lock: dict[str, dict]) -> None:
    if recorded == m.checksum:
        return
    if recorded in lock.get(m.filename, {}).get("superseded", {}):
        log.info("migration applied from superseded text",
                 extra={"fields": {"schema": schema, "version": m.version}})
        return
    raise MigrationChanged(
        f"migration {schema}/{m.filename} was applied to this database from a text "
        f"(sha256 {recorded}) that is neither the current one nor a known earlier one "
        f"in {LOCK_NAME}; this code cannot upgrade it: restore a backup made by the code "
        "that built it, or build a new database and import an export")


async def _grant(conn: asyncpg.Connection, role: str, schema: str) -> None:
    await conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"')
    await conn.execute(
        f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"'
    )
    await conn.execute(f'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"')
    await conn.execute(
        f'REVOKE INSERT, UPDATE, DELETE ON "{schema}".schema_migrations FROM "{role}"'
    )
    # An `audit` table is append-only for the service itself.
    if await conn.fetchval("SELECT to_regclass($1)", f'"{schema}".audit') is not None:
        await conn.execute(f'REVOKE UPDATE, DELETE ON "{schema}".audit FROM "{role}"')


async def migrations_current(pool: asyncpg.Pool, schema: str, directory: Path) -> bool:
    """Readiness check: every migration on disk is recorded as applied."""
    wanted = {m.version for m in load_migrations(directory)}
    async with pool.acquire() as conn:
        rows = await conn.fetch(f'SELECT version FROM "{schema}".schema_migrations')
    return wanted <= {r["version"] for r in rows}
