"""SQL for leases and their wait queues. The caller owns the transaction."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from engram_kit.db import fetchrow_one
from engram_kit.rows import select_list

from .rows import LEASE_EXPRESSIONS, LeaseAt, LeaseKey, LeaseRow, ListedLease

LEASE_COLUMNS = select_list(LeaseRow)
AT_COLUMNS = select_list(LeaseAt, LEASE_EXPRESSIONS)


async def lock_lease(conn: asyncpg.Connection, namespace: str, name: str) -> LeaseAt:
    """The lease row, created on first use and locked for this transaction:
    every decision about one lease is serialised on this lock."""
    await conn.execute(
        "INSERT INTO leases (namespace, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        namespace, name)
    return LeaseAt.of(await fetchrow_one(
        conn, f"SELECT {AT_COLUMNS} FROM leases WHERE name = $1 FOR UPDATE", name))


async def grant(conn: asyncpg.Connection, name: str, holder: str,
                ttl_s: float) -> LeaseRow:
    return LeaseRow.of(await fetchrow_one(
        conn,
        """UPDATE leases SET holder = $2, last_token = last_token + 1, granted_at = now(),
                  expires_at = now() + make_interval(secs => $3), free_since = NULL,
                  offered_to = NULL
           WHERE name = $1 RETURNING """ + LEASE_COLUMNS,
        name, holder, ttl_s))


async def renew(conn: asyncpg.Connection, name: str, ttl_s: float) -> LeaseRow:
    return LeaseRow.of(await fetchrow_one(
        conn,
        """UPDATE leases SET expires_at = now() + make_interval(secs => $2)
           WHERE name = $1 RETURNING """ + LEASE_COLUMNS,
        name, ttl_s))


async def release(conn: asyncpg.Connection, name: str) -> LeaseRow:
    return LeaseRow.of(await fetchrow_one(
        conn,
        """UPDATE leases SET holder = NULL, free_since = now(), expires_at = NULL
           WHERE name = $1 RETURNING """ + LEASE_COLUMNS,
        name))


async def mark_expired(conn: asyncpg.Connection, name: str) -> LeaseRow:
    """An expired grant becomes free as of its expiry time."""
    return LeaseRow.of(await fetchrow_one(
        conn,
        """UPDATE leases SET holder = NULL, free_since = expires_at, expires_at = NULL
           WHERE name = $1 RETURNING """ + LEASE_COLUMNS,
        name))


async def restart_handover(conn: asyncpg.Connection, name: str, at: datetime) -> None:
    await conn.execute("UPDATE leases SET free_since = $2 WHERE name = $1", name, at)


async def queue(conn: asyncpg.Connection, name: str) -> list[str]:
    rows = await conn.fetch(
        "SELECT agent_id FROM lease_queue WHERE name = $1 ORDER BY seq", name)
    return [r["agent_id"] for r in rows]


async def enqueue(conn: asyncpg.Connection, namespace: str, name: str, agent_id: str) -> None:
    await conn.execute(
        """INSERT INTO lease_queue (namespace, name, agent_id) VALUES ($1, $2, $3)
           ON CONFLICT DO NOTHING""",
        namespace, name, agent_id)


async def dequeue(conn: asyncpg.Connection, name: str, agent_id: str) -> bool:
    done = await conn.execute(
        "DELETE FROM lease_queue WHERE name = $1 AND agent_id = $2", name, agent_id)
    return done != "DELETE 0"


async def list_leases(conn: asyncpg.Connection, prefix: str) -> list[ListedLease]:
    """Leases that are held or have waiters (a free lease nobody wants is
    not news)."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return ListedLease.all(await conn.fetch(
        f"SELECT {select_list(ListedLease, LEASE_EXPRESSIONS)}"
        """ FROM leases l
           WHERE l.name LIKE $1 || '%'
             AND (l.holder IS NOT NULL OR EXISTS (SELECT 1 FROM lease_queue q
                                                  WHERE q.name = l.name))
           ORDER BY l.name LIMIT 200""",
        escaped))


async def set_offer(conn: asyncpg.Connection, name: str, agent_id: str | None) -> None:
    await conn.execute("UPDATE leases SET offered_to = $2 WHERE name = $1", name, agent_id)


async def sweep_candidates(conn: asyncpg.Connection) -> list[LeaseKey]:
    """Queued leases whose grant expired or whose hand-over is running;
    read under the lease_sweep duty (all namespaces)."""
    return LeaseKey.all(await conn.fetch(
        """SELECT DISTINCT l.namespace, l.name FROM leases l
           JOIN lease_queue q ON q.namespace = l.namespace AND q.name = l.name
           WHERE (l.holder IS NOT NULL AND l.expires_at <= now())
              OR (l.holder IS NULL AND l.free_since IS NOT NULL)
           LIMIT 500"""))


async def state(conn: asyncpg.Connection, name: str) -> LeaseAt:
    """The lease row with the database's clock."""
    return LeaseAt.of(await fetchrow_one(conn, f"SELECT {AT_COLUMNS} FROM leases WHERE name = $1",
                                         name))
