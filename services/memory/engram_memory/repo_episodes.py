"""SQL for episodes. The caller owns the transaction (tenant_tx)."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from engram_kit.rows import select_list

from .rows_episodes import EpisodeHead, EpisodeRecap, TextRow, recap_select

HEAD_COLUMNS = select_list(EpisodeHead)


async def innermost_open(conn: asyncpg.Connection, session_id: str) -> EpisodeHead | None:
    row = await conn.fetchrow(
        f"SELECT {HEAD_COLUMNS} FROM episodes"
        " WHERE session_id = $1 AND ended_at IS NULL ORDER BY started_at DESC LIMIT 1",
        session_id,
    )
    return None if row is None else EpisodeHead.of(row)


async def session_root(conn: asyncpg.Connection, session_id: str) -> UUID | None:
    """The id of the session's newest root episode."""
    return await conn.fetchval(
        "SELECT id FROM episodes WHERE session_id = $1 AND parent_id IS NULL"
        " ORDER BY started_at DESC LIMIT 1", session_id,
    )


async def create(conn: asyncpg.Connection, episode_id: UUID, namespace: str,
                 parent_id: UUID | None, session_id: str, title: str,
                 started_by: str) -> EpisodeHead:
    row = await conn.fetchrow(
        # clock_timestamp: a session's root and its first child are created in one
        # transaction, and now() would give both the same start (innermost_open
        # could then pick the root).
        "INSERT INTO episodes (id, namespace, parent_id, session_id, title, started_by,"
        " started_at) VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp())"
        f" RETURNING {HEAD_COLUMNS}",
        episode_id, namespace, parent_id, session_id, title, started_by,
    )
    assert row is not None  # INSERT ... RETURNING yields the row
    return EpisodeHead.of(row)


async def end(conn: asyncpg.Connection, episode_id: UUID) -> None:
    await conn.execute("UPDATE episodes SET ended_at = now() WHERE id = $1", episode_id)


async def retitle(conn: asyncpg.Connection, episode_id: UUID, title: str) -> None:
    await conn.execute("UPDATE episodes SET title = $2, auto_title = false WHERE id = $1",
                       episode_id, title)


async def recent_with_entries(conn: asyncpg.Connection, limit: int,
                              per_episode: int) -> list[EpisodeRecap]:
    """Recent episodes with their live entry count and newest live entries."""
    return EpisodeRecap.all(await conn.fetch(
        f"SELECT {recap_select()} FROM episodes ep ORDER BY ep.started_at DESC LIMIT $1",
        limit, per_episode,
    ))


async def episode_tail(conn: asyncpg.Connection, episode: str,
                       n: int) -> list[TextRow]:
    """The latest n live entries written in an episode, latest first: a
    superseded or archived line is not folded into the next line's context
    vector (the first is the line search's context lift reads as the one
    before, repo_candidates.py)."""
    return TextRow.all(await conn.fetch(
        f"SELECT {select_list(TextRow)} FROM live_entries WHERE episode = $1"
        " ORDER BY created_at DESC LIMIT $2", episode, n))
