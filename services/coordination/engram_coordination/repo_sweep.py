"""SQL of the board sweep and the board's counts. `due_namespaces` runs under
the board_sweep duty (all namespaces, read only); the rest run in a tenant
transaction the caller owns. Times come from the caller's clock."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from engram_kit.db import fetchrow_one
from engram_kit.rows import select_list

from .rows import BoardCounts, ErasedBody, ExpiredLease


async def due_namespaces(conn: asyncpg.Connection, body_before: datetime,
                         agent_before: datetime, now: datetime,
                         limit: int) -> list[str]:
    rows = await conn.fetch(
        """SELECT namespace FROM messages
             WHERE acked_at < $1 AND body IS NOT NULL
           UNION SELECT namespace FROM agents WHERE last_seen < $2
           UNION SELECT l.namespace FROM leases l
             WHERE l.holder IS NOT NULL AND l.expires_at <= $3
               AND NOT EXISTS (SELECT 1 FROM lease_queue q
                               WHERE q.namespace = l.namespace AND q.name = l.name)
           LIMIT $4""", body_before, agent_before, now, limit)
    return [r["namespace"] for r in rows]


async def expire_bodies(conn: asyncpg.Connection, before: datetime, at: datetime,
                        limit: int) -> list[ErasedBody]:
    """Drop the bodies of mail acknowledged before `before`; the row, its
    keyed digest and its audit rows stay."""
    return ErasedBody.all(await conn.fetch(
        """UPDATE messages SET body = NULL, redacted_at = $2, redacted_by = 'board.sweep'
           WHERE id IN (SELECT id FROM messages WHERE acked_at < $1 AND body IS NOT NULL
                        ORDER BY acked_at LIMIT $3)
           RETURNING """ + select_list(ErasedBody), before, at, limit))


async def retire_agents(conn: asyncpg.Connection, before: datetime,
                        limit: int) -> list[str]:
    """Remove agents not seen since `before`, and their places in lease queues."""
    ids = [r["id"] for r in await conn.fetch(
        """DELETE FROM agents WHERE id IN (SELECT id FROM agents WHERE last_seen < $1
                                          ORDER BY last_seen LIMIT $2)
           RETURNING id""", before, limit)]
    if ids:
        await conn.execute("DELETE FROM lease_queue WHERE agent_id = ANY($1::text[])", ids)
    return ids


async def expire_leases(conn: asyncpg.Connection, now: datetime,
                        limit: int) -> list[ExpiredLease]:
    """Free grants that expired with nobody queued (queued ones are handed
    over by the lease sweep); the fencing token is kept."""
    return ExpiredLease.all(await conn.fetch(
        """UPDATE leases SET holder = NULL, free_since = expires_at, expires_at = NULL
           WHERE name IN (SELECT l.name FROM leases l
                          WHERE l.holder IS NOT NULL AND l.expires_at <= $1
                            AND NOT EXISTS (SELECT 1 FROM lease_queue q
                                            WHERE q.name = l.name)
                          ORDER BY l.expires_at LIMIT $2)
           RETURNING """ + select_list(ExpiredLease), now, limit))


async def counts(conn: asyncpg.Connection, active_since: datetime) -> BoardCounts:
    """The namespace's board, each count on an index led by namespace."""
    return BoardCounts.of(await fetchrow_one(conn, """
        SELECT (SELECT count(*) FROM agents) AS agents,
               (SELECT count(*) FROM agents WHERE last_seen >= $1) AS active,
               (SELECT count(*) FROM leases WHERE holder IS NOT NULL
                  AND expires_at > now()) AS held,
               (SELECT count(*) FROM lease_queue) AS waiters,
               (SELECT count(*) FROM messages WHERE acked_at IS NULL) AS pending,
               (SELECT count(*) FROM messages WHERE acked_at IS NOT NULL
                  AND body IS NOT NULL) AS acked_bodies""", active_since))
