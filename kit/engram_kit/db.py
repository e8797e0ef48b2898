"""asyncpg pool with the pgvector codec, and tenant-scoped transactions.

Row-level security policies read `engram.namespace`; it is set per
transaction (set_config(..., true)), so it can never leak to the next user
of a pooled connection.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
from pgvector.asyncpg import register_vector

from .health import Readiness
from .migrate import migrations_current
from .settings import DatabaseSettings

NAMESPACE_SETTING = "engram.namespace"
# Cross-namespace duties of a service's own background jobs. Each one is
# granted by an RLS policy on one queue table only (never on content tables).
CROSS_NAMESPACE_DUTIES = ("outbox_relay", "embedding_sweep", "lease_sweep", "dream_scheduler")


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Pool reset: nothing beyond asyncpg's own rollback of an unfinished
    transaction. Our code sets state only per transaction (set_config(...,
    true), SET LOCAL) and takes transaction-scoped locks, so asyncpg's default
    reset (unlock all, CLOSE ALL, UNLISTEN *, RESET ALL) would only cost one
    more round trip on every release, on every request's path. Code that holds
    session state on a pooled connection must undo it itself, or terminate
    the connection when it cannot (see the dreamer's single-flight lock)."""


async def create_pool(dsn: str, *, schema: str, min_size: int = 1, max_size: int = 10,
                      vector: bool = True,
                      session_settings: dict[str, str] | None = None) -> asyncpg.Pool:
    """`session_settings`: parameters every connection starts with (e.g. a
    pgvector scan mode all of a service's vector queries use)."""
    return await asyncpg.create_pool(
        dsn, min_size=min_size, max_size=max_size,
        init=_init_connection if vector else None, reset=_keep_session,
        command_timeout=30,
        server_settings={"search_path": f'"{schema}", public', "application_name": schema,
                         **(session_settings or {})},
    )


@asynccontextmanager
async def tenant_tx(pool: asyncpg.Pool, namespace: str) -> AsyncIterator[asyncpg.Connection]:
    """A transaction whose rows are limited to `namespace` by RLS."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT set_config($1, $2, true)", NAMESPACE_SETTING, namespace)
        yield conn


@asynccontextmanager
async def duty_tx(pool: asyncpg.Pool, duty: str) -> AsyncIterator[asyncpg.Connection]:
    """A transaction for a background duty (e.g. the outbox relay): the RLS
    policy named for the duty lets it see every namespace's rows of its own
    queue table, and nothing else."""
    if duty not in CROSS_NAMESPACE_DUTIES:
        raise ValueError(f"unknown duty {duty!r}")
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT set_config($1, 'on', true)", f"engram.{duty}")
        yield conn


async def ping(pool: asyncpg.Pool) -> bool:
    async with pool.acquire() as conn:
        return await conn.fetchval("SELECT 1") == 1


async def open_service_database(s: DatabaseSettings, schema: str, *, vector: bool = True,
                                session_settings: dict[str, str] | None = None) -> asyncpg.Pool:
    """The pool, as the service's own role only: migrations are applied
    beforehand, as the admin, by the one-shot `migrate` job, so no service
    ever holds the admin's credentials."""
    dsn = s.database_url.get_secret_value()
    return await create_pool(dsn, schema=schema, min_size=s.db_pool_min,
                             max_size=s.db_pool_max, vector=vector,
                             session_settings=session_settings)


def add_database_checks(readiness: Readiness, pool: asyncpg.Pool, schema: str,
                        migrations_dir: Path) -> None:
    readiness.add("database", lambda: ping(pool))
    readiness.add("migrations", lambda: migrations_current(pool, schema, migrations_dir))
