"""asyncpg pool with the pgvector codec, and tenant-scoped transactions.

Row-level security policies read `engram.namespace`; it is set per
transaction (set_config(..., true)), so it can never leak to the next user
of a pooled connection.
"""

from __future__ import annotations

import errno
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import asyncpg
from pgvector.asyncpg import register_vector

from .health import Readiness
from .metrics import stage
from .migrate import migrations_current
from .settings import DatabaseSettings

log = logging.getLogger(__name__)

NAMESPACE_SETTING = "engram.namespace"
# Rows that belong to a principal rather than a namespace (its toolset tier).
PRINCIPAL_SETTING = "engram.principal"
# Cross-namespace duties of a service's own background jobs. Each one is
# granted by an RLS policy on its queue table only, except: the episode sweep
# may only SELECT episodes (their ids and times), and board_sweep may read
# (never write) the board's tables to learn which namespaces have something
# to tidy; each then works in that namespace's tenant transaction.
CROSS_NAMESPACE_DUTIES = ("outbox_relay", "embedding_sweep", "lease_sweep", "dream_scheduler",
                          "episode_sweep", "board_sweep")


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


# SQLSTATE classes that say the server, not the statement, is the problem:
# 08 connection exceptions, 57 operator intervention (shutting down, starting
# up, crash recovery, a query cancelled by statement_timeout), too many
# connections. Each is over when the database is back.
_DATABASE_DOWN = (asyncpg.PostgresConnectionError, asyncpg.OperatorInterventionError,
                  asyncpg.TooManyConnectionsError, asyncpg.ConnectionDoesNotExistError)
_NETWORK_ERRNOS = frozenset({errno.ECONNREFUSED, errno.ECONNRESET, errno.ECONNABORTED,
                             errno.ETIMEDOUT, errno.EHOSTUNREACH, errno.ENETUNREACH,
                             errno.EPIPE, errno.EADDRNOTAVAIL})


def connection_failure(exc: BaseException) -> str:
    """Why `exc` means a dependency is unreachable ('' when it does not):
    the database refusing or dropping connections, a connect or pool acquire
    timing out, a query that hangs on a dead connection. Follows the chain of
    causes, since drivers wrap the socket error."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, _DATABASE_DOWN):
            return "the database is unavailable"
        if isinstance(cur, TimeoutError):
            return "a dependency did not answer in time"
        if isinstance(cur, ConnectionError) or (
                isinstance(cur, OSError) and (cur.errno in _NETWORK_ERRNOS
                                              or str(cur).startswith("Multiple exceptions"))):
            return "the database is unreachable"
        cur = cur.__cause__ or cur.__context__
    return ""


class BoundedPool(asyncpg.Pool):
    """A pool whose acquire never waits forever: with the database gone, or
    every connection stuck on a dead peer, callers get a TimeoutError (mapped
    to UNAVAILABLE) instead of hanging. The wait includes reconnecting."""

    acquire_timeout_s: float = 5.0

    def acquire(self, *, timeout: float | None = None) -> Any:
        return super().acquire(timeout=self.acquire_timeout_s if timeout is None else timeout)


async def create_pool(dsn: str, *, schema: str, min_size: int = 1, max_size: int = 10,
                      vector: bool = True, session_settings: dict[str, str] | None = None,
                      connect_timeout_s: float = 5.0, acquire_timeout_s: float = 5.0,
                      command_timeout_s: float = 30.0, connect_now: bool = True,
                      ) -> asyncpg.Pool:
    """`session_settings`: parameters every connection starts with (e.g. a
    pgvector scan mode all of a service's vector queries use). `connect_now`
    False opens no connection yet (the database may be down): the pool
    connects on first use and keeps no floor of idle connections."""
    floor = min_size if connect_now else 0
    pool = BoundedPool(
        dsn, init_size=floor, min_size=floor, max_size=max_size,
        max_queries=50000, max_inactive_connection_lifetime=300.0, loop=None,
        connection_class=asyncpg.Connection, record_class=asyncpg.Record,
        init=_init_connection if vector else None, reset=_keep_session,
        timeout=connect_timeout_s, command_timeout=command_timeout_s,
        server_settings={"search_path": f'"{schema}", public', "application_name": schema,
                         **(session_settings or {})},
    )
    pool.acquire_timeout_s = acquire_timeout_s
    return await pool


@asynccontextmanager
async def pooled(pool: asyncpg.Pool) -> AsyncIterator[asyncpg.Connection]:
    """A connection from the pool. asyncpg hands out a proxy that forwards
    every attribute to the Connection and passes isinstance checks for one,
    so it is typed as the Connection it stands for."""
    async with pool.acquire() as conn:
        yield cast(asyncpg.Connection, conn)


@asynccontextmanager
async def tenant_tx(pool: asyncpg.Pool, namespace: str) -> AsyncIterator[asyncpg.Connection]:
    """A transaction whose rows are limited to `namespace` by RLS."""
    with stage("transaction"):
        async with pooled(pool) as conn, conn.transaction():
            await conn.execute("SELECT set_config($1, $2, true)", NAMESPACE_SETTING,
                               namespace)
            yield conn


@asynccontextmanager
async def principal_tx(pool: asyncpg.Pool, principal: str) -> AsyncIterator[asyncpg.Connection]:
    """A transaction whose rows are limited to `principal`'s own by RLS."""
    async with pooled(pool) as conn, conn.transaction():
        await conn.execute("SELECT set_config($1, $2, true)", PRINCIPAL_SETTING, principal)
        yield conn


@asynccontextmanager
async def duty_tx(pool: asyncpg.Pool, duty: str) -> AsyncIterator[asyncpg.Connection]:
    """A transaction for a background duty (e.g. the outbox relay): the RLS
    policy named for the duty lets it see every namespace's rows of its own
    queue table, and nothing else."""
    if duty not in CROSS_NAMESPACE_DUTIES:
        raise ValueError(f"unknown duty {duty!r}")
    async with pooled(pool) as conn, conn.transaction():
        await conn.execute("SELECT set_config($1, 'on', true)", f"engram.{duty}")
        yield conn


async def fetchrow_one(conn: asyncpg.Connection, query: str, *args: Any) -> asyncpg.Record:
    """fetchrow for a statement that yields a row by construction (an
    aggregate, INSERT ... RETURNING, an update of a row locked or created
    earlier in the transaction): no row is a broken invariant, not a miss."""
    row = await conn.fetchrow(query, *args)
    if row is None:
        raise RuntimeError(f"expected a row from {query.split(None, 1)[0]} statement")
    return row


async def fetchval_one(conn: asyncpg.Connection, query: str, *args: Any) -> Any:
    """fetchval for a statement whose value is never NULL by construction
    (a count, RETURNING a NOT NULL column or expression)."""
    value = await conn.fetchval(query, *args)
    if value is None:
        raise RuntimeError(f"expected a value from {query.split(None, 1)[0]} statement")
    return value


async def ping(pool: asyncpg.Pool) -> bool:
    async with pool.acquire() as conn:
        return await conn.fetchval("SELECT 1") == 1


async def open_service_database(s: DatabaseSettings, schema: str, *, vector: bool = True,
                                session_settings: dict[str, str] | None = None) -> asyncpg.Pool:
    """The pool, as the service's own role only: migrations are applied
    beforehand, as the admin, by the one-shot `migrate` job, so no service
    ever holds the admin's credentials.

    A database that is down at start is not fatal: the pool opens without
    connections, readiness reports not-ready, and the service becomes ready
    by itself once the database answers. Anything else (a wrong password, a
    missing database) still stops the service with the driver's message."""
    dsn = s.database_url.get_secret_value()
    options: dict[str, Any] = {
        "schema": schema, "min_size": s.db_pool_min, "max_size": s.db_pool_max,
        "vector": vector, "session_settings": session_settings,
        "connect_timeout_s": s.db_connect_timeout_s, "acquire_timeout_s": s.db_acquire_timeout_s,
        "command_timeout_s": s.db_command_timeout_s}
    try:
        return await create_pool(dsn, **options)
    except Exception as exc:
        reason = connection_failure(exc)
        if not reason:
            raise
        log.warning("database not reachable at start: serving not-ready until it is",
                    extra={"fields": {"error": repr(exc)}})
        return await create_pool(dsn, connect_now=False, **options)


def add_database_checks(readiness: Readiness, pool: asyncpg.Pool, schema: str,
                        migrations_dir: Path) -> None:
    readiness.add("database", lambda: ping(pool))
    readiness.add("migrations", lambda: migrations_current(pool, schema, migrations_dir))
