"""SQL for closing, reopening and summarising session episodes. The caller
owns the transaction (tenant_tx; idle_roots needs duty_tx)."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from engram_kit.rows import select_list

from .rows_episodes import IdleRoot, SessionEpisode

EPISODE_COLS = select_list(SessionEpisode)


def _row(record: asyncpg.Record | None) -> SessionEpisode | None:
    return None if record is None else SessionEpisode.of(record)


async def touch(conn: asyncpg.Connection, session_id: str) -> None:
    await conn.execute(
        "UPDATE episodes SET last_active_at = clock_timestamp()"
        " WHERE session_id = $1 AND parent_id IS NULL AND ended_at IS NULL", session_id)


async def reopen_recent(conn: asyncpg.Connection, session_id: str,
                        window_s: float) -> bool:
    """Reopen the session's root closed within `window_s`, with the episodes
    nested in it that the same close ended; False when there is none."""
    root = await conn.fetchrow(
        "SELECT id, ended_at FROM episodes WHERE session_id = $1 AND parent_id IS NULL"
        " AND ended_at > now() - make_interval(secs => $2)"
        " ORDER BY ended_at DESC LIMIT 1 FOR UPDATE", session_id, window_s)
    if root is None:
        return False
    await conn.execute(
        "UPDATE episodes SET ended_at = NULL WHERE ended_at = $2 AND id = ANY($1::uuid[])",
        await tree_ids(conn, root["id"]), root["ended_at"])
    return True


async def open_root(conn: asyncpg.Connection, session_id: str) -> SessionEpisode | None:
    return _row(await conn.fetchrow(
        f"SELECT {EPISODE_COLS} FROM episodes WHERE session_id = $1 AND parent_id IS NULL"
        " AND ended_at IS NULL ORDER BY started_at DESC LIMIT 1 FOR UPDATE", session_id))


async def latest_root(conn: asyncpg.Connection, session_id: str) -> SessionEpisode | None:
    return _row(await conn.fetchrow(
        f"SELECT {EPISODE_COLS} FROM episodes WHERE session_id = $1 AND parent_id IS NULL"
        " ORDER BY started_at DESC LIMIT 1", session_id))


async def get(conn: asyncpg.Connection, episode_id: UUID) -> SessionEpisode | None:
    return _row(await conn.fetchrow(f"SELECT {EPISODE_COLS} FROM episodes WHERE id = $1",
                                    episode_id))


async def open_idle_root(conn: asyncpg.Connection, episode_id: UUID,
                         idle_s: float) -> SessionEpisode | None:
    """The root, locked, if it is still open and idle (a write may have come)."""
    return _row(await conn.fetchrow(
        f"SELECT {EPISODE_COLS} FROM episodes WHERE id = $1 AND ended_at IS NULL"
        " AND coalesce(last_active_at, started_at) < now() - make_interval(secs => $2)"
        " FOR UPDATE", episode_id, idle_s))


async def tree_ids(conn: asyncpg.Connection, root_id: UUID) -> list[UUID]:
    """The episode and every episode nested in it."""
    rows = await conn.fetch(
        "WITH RECURSIVE t(id) AS (SELECT $1::uuid UNION ALL"
        " SELECT e.id FROM episodes e JOIN t ON e.parent_id = t.id) SELECT id FROM t",
        root_id)
    return [r["id"] for r in rows]


async def entry_texts(conn: asyncpg.Connection, ids: list[UUID],
                      limit: int) -> list[str]:
    """The live entries of these episodes, oldest first."""
    rows = await conn.fetch(
        "SELECT text FROM live_entries WHERE episode = ANY($1::text[])"
        " ORDER BY created_at LIMIT $2", [str(i) for i in ids], limit)
    return [r["text"] for r in rows]


async def entry_count(conn: asyncpg.Connection, ids: list[UUID], live: bool) -> int:
    table = "live_entries" if live else "entries"
    n = await conn.fetchval(f"SELECT count(*) FROM {table} WHERE episode = ANY($1::text[])",
                            [str(i) for i in ids])
    return int(n or 0)


async def close_tree(conn: asyncpg.Connection, ids: list[UUID], root_id: UUID, title: str,
                     summary: str) -> SessionEpisode:
    await conn.execute("UPDATE episodes SET ended_at = now()"
                       " WHERE id = ANY($1::uuid[]) AND ended_at IS NULL", ids)
    row = await conn.fetchrow(
        f"UPDATE episodes SET title = $2, summary = $3 WHERE id = $1 RETURNING {EPISODE_COLS}",
        root_id, title, summary)
    assert row is not None  # the caller holds the root's lock
    return SessionEpisode.of(row)


async def delete(conn: asyncpg.Connection, ids: list[UUID]) -> None:
    await conn.execute("DELETE FROM episodes WHERE id = ANY($1::uuid[])", ids)


async def idle_roots(conn: asyncpg.Connection, idle_s: float,
                     limit: int) -> list[IdleRoot]:
    """Open session episodes idle for idle_s, across namespaces (duty_tx)."""
    return IdleRoot.all(await conn.fetch(
        f"SELECT {select_list(IdleRoot)} FROM episodes WHERE ended_at IS NULL AND parent_id IS NULL"
        " AND coalesce(last_active_at, started_at) < now() - make_interval(secs => $1)"
        " ORDER BY coalesce(last_active_at, started_at) LIMIT $2", idle_s, limit))


async def summarised_roots(conn: asyncpg.Connection,
                           episode_ids: list[UUID]) -> list[SessionEpisode]:
    """The session roots above these episodes that hold a stored summary, locked."""
    return SessionEpisode.all(await conn.fetch(
        f"WITH RECURSIVE up(id, parent_id) AS ("
        " SELECT id, parent_id FROM episodes WHERE id = ANY($1::uuid[])"
        " UNION SELECT e.id, e.parent_id FROM episodes e JOIN up ON e.id = up.parent_id)"
        f" SELECT {EPISODE_COLS} FROM episodes WHERE summary <> ''"
        " AND id IN (SELECT id FROM up WHERE parent_id IS NULL) FOR UPDATE", episode_ids))


async def set_summary(conn: asyncpg.Connection, episode_id: UUID, title: str,
                      summary: str) -> None:
    await conn.execute("UPDATE episodes SET title = $2, summary = $3 WHERE id = $1",
                       episode_id, title, summary)
