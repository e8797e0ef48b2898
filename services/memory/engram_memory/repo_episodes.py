"""SQL for episodes. The caller owns the transaction (tenant_tx)."""

from __future__ import annotations

from uuid import UUID

import asyncpg


async def innermost_open(conn: asyncpg.Connection, session_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        "SELECT id, parent_id, title, started_at FROM episodes"
        " WHERE session_id = $1 AND ended_at IS NULL ORDER BY started_at DESC LIMIT 1",
        session_id,
    )


async def session_root(conn: asyncpg.Connection, session_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        "SELECT id, title FROM episodes WHERE session_id = $1 AND parent_id IS NULL"
        " ORDER BY started_at DESC LIMIT 1", session_id,
    )


async def create(conn: asyncpg.Connection, episode_id: UUID, namespace: str,
                 parent_id: UUID | None, session_id: str, title: str,
                 started_by: str) -> asyncpg.Record:
    row = await conn.fetchrow(
        # clock_timestamp: a session's root and its first child are created in one
        # transaction, and now() would give both the same start (innermost_open
        # could then pick the root).
        "INSERT INTO episodes (id, namespace, parent_id, session_id, title, started_by,"
        " started_at) VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp())"
        " RETURNING id, parent_id, title, started_at",
        episode_id, namespace, parent_id, session_id, title, started_by,
    )
    assert row is not None  # INSERT ... RETURNING yields the row
    return row


async def end(conn: asyncpg.Connection, episode_id: UUID) -> None:
    await conn.execute("UPDATE episodes SET ended_at = now() WHERE id = $1", episode_id)


async def retitle(conn: asyncpg.Connection, episode_id: UUID, title: str) -> None:
    await conn.execute("UPDATE episodes SET title = $2, auto_title = false WHERE id = $1",
                       episode_id, title)


async def recent_with_entries(conn: asyncpg.Connection, limit: int,
                              per_episode: int) -> list[asyncpg.Record]:
    """Recent episodes with their live entry count and newest live entries."""
    return await conn.fetch(
        "SELECT ep.id, ep.title, ep.parent_id, ep.started_at, ep.ended_at, ep.started_by,"
        "  (SELECT count(*) FROM live_entries e WHERE e.episode = ep.id::text) AS entries,"
        "  ARRAY(SELECT e.text FROM live_entries e WHERE e.episode = ep.id::text"
        "        ORDER BY e.created_at DESC LIMIT $2) AS latest"
        " FROM episodes ep ORDER BY ep.started_at DESC LIMIT $1", limit, per_episode,
    )


async def episode_tail(conn: asyncpg.Connection, episode: str,
                       n: int) -> list[asyncpg.Record]:
    """The latest n live entries written in an episode, latest first (the
    order episode_context reads): a superseded or archived line is not
    folded into the next line's context vector."""
    return await conn.fetch(
        "SELECT id, text FROM live_entries WHERE episode = $1"
        " ORDER BY created_at DESC LIMIT $2", episode, n)
