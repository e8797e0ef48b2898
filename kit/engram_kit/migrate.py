"""Forward-only SQL migrations, one schema per service, under an advisory lock.

Run with an admin connection: it creates the service's runtime role (no
superuser, no BYPASSRLS) and schema, applies `NNNN_name.sql` files in order,
records them in `<schema>.schema_migrations`, and grants the runtime role DML
rights only. Tables are owned by the admin role, so the runtime role cannot
disable row-level security.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import asyncpg

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

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
    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.execute("SELECT pg_advisory_lock(hashtext('engram.migrate'))")
        try:
            return await _apply_locked(conn, role, password, schema, migrations)
        finally:
            await conn.execute("SELECT pg_advisory_unlock(hashtext('engram.migrate'))")
    finally:
        await conn.close()


async def _apply_locked(conn: asyncpg.Connection, role: str, password: str, schema: str,
                        migrations: list[Migration]) -> list[int]:
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
            if done[m.version] != m.checksum:
                raise RuntimeError(
                    f"migration {schema}/{m.version}_{m.name} changed after it was applied; "
                    "migrations are forward-only: add a new one instead"
                )
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
