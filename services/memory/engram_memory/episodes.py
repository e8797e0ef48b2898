"""Episodes (sessions and nested tasks) and the session-start briefing."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import asyncpg

from engram_kit import audit, idempotency, locks
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument
from engram_kit.idempotency import Keyed

from . import repo_episodes as repo
from . import repo_sessions
from .rows_episodes import EpisodeHead, EpisodeRecap
from .validation import clean_text

MAX_TITLE = 200
# A session's episode closed less than this long ago reopens on its next write
# (the memory settings' session_reopen_s; this is its default).
REOPEN_S = 86_400.0


@dataclass
class Episode:
    id: uuid.UUID
    title: str
    parent_id: uuid.UUID | None


def _session(ctx: CallerContext) -> str:
    if not ctx.session_id:
        raise InvalidArgument("episodes need an MCP session (no session id on this call)")
    return ctx.session_id


def default_title(session_id: str) -> str:
    return f"session {session_id[:24]}"


async def current_episode(conn: asyncpg.Connection, ctx: CallerContext,
                          reopen_s: float = REOPEN_S) -> str | None:
    """The innermost open episode of the caller's session: opened on first
    use, reopened when it closed less than `reopen_s` ago; marks the session
    active (the idle close counts from here)."""
    if not ctx.session_id:
        return None
    open_ = await repo.innermost_open(conn, ctx.session_id)
    if open_ is None:
        open_ = await _open_for_session(conn, ctx, reopen_s)
    await repo_sessions.touch(conn, ctx.session_id)
    return str(open_.id)


async def _open_for_session(conn: asyncpg.Connection, ctx: CallerContext,
                            reopen_s: float) -> EpisodeHead:
    """Reopen or open the session's episode under a lock on the session, so
    two first writes of one session (a store resolves its episode before its
    audited transaction) open one episode, not two."""
    assert ctx.session_id
    await locks.xact_lock(conn, f"episodes/{ctx.namespace}/{ctx.session_id}")
    open_ = await repo.innermost_open(conn, ctx.session_id)  # the lock holder's, if any
    if open_ is None and await repo_sessions.reopen_recent(conn, ctx.session_id, reopen_s):
        open_ = await repo.innermost_open(conn, ctx.session_id)
    if open_ is None:
        open_ = await repo.create(conn, uuid.uuid4(), ctx.namespace, None, ctx.session_id,
                                  default_title(ctx.session_id), ctx.principal)
    return open_


def _reply_of(row: EpisodeHead) -> dict[str, str]:
    return {"id": str(row.id), "title": row.title, "parent_id": str(row.parent_id)}


def _episode_of(reply: dict[str, str]) -> Episode:
    return Episode(uuid.UUID(reply["id"]), reply["title"], uuid.UUID(reply["parent_id"]))


class Episodes:
    def __init__(self, pool: asyncpg.Pool, reopen_s: float = REOPEN_S) -> None:
        self.pool = pool
        self.reopen_s = reopen_s

    async def start(self, ctx: CallerContext, title: str) -> Episode:
        session = _session(ctx)
        title = clean_text(title, MAX_TITLE, "title")
        keyed = Keyed.of("EpisodeStart", ctx.idempotency_key, session, title)
        async with audit.audited_tx(self.pool, ctx.require_namespace()) as conn:
            if (earlier := await idempotency.replay(conn, keyed)) is not None:
                return _episode_of(earlier)
            parent = await current_episode(conn, ctx, self.reopen_s)
            row = await repo.create(conn, uuid.uuid4(), ctx.namespace, uuid.UUID(parent),
                                    session, title, ctx.principal)
            await audit.append(conn, ctx.namespace, ctx.principal, "episode.start",
                               str(row.id), {"title": title})
            await idempotency.remember(conn, ctx.namespace, keyed, _reply_of(row))
        return Episode(row.id, row.title, row.parent_id)

    async def end(self, ctx: CallerContext) -> Episode:
        session = _session(ctx)
        keyed = Keyed.of("EpisodeEnd", ctx.idempotency_key, session)
        async with audit.audited_tx(self.pool, ctx.require_namespace()) as conn:
            if (earlier := await idempotency.replay(conn, keyed)) is not None:
                return _episode_of(earlier)  # a retry must not end the enclosing one
            row = await repo.innermost_open(conn, session)
            if row is None and await repo_sessions.reopen_recent(conn, session, self.reopen_s):
                row = await repo.innermost_open(conn, session)  # closed by a Stop hook
            if row is None or row.parent_id is None:
                raise Conflict("no open episode to end in this session (the session's own "
                               "episode ends with the session)")
            await repo.end(conn, row.id)
            await audit.append(conn, ctx.namespace, ctx.principal, "episode.end", str(row.id))
            await idempotency.remember(conn, ctx.namespace, keyed, _reply_of(row))
        return Episode(row.id, row.title, row.parent_id)

    async def title_session(self, ctx: CallerContext, title: str) -> Episode:
        session = _session(ctx)
        title = clean_text(title, MAX_TITLE, "title")
        async with audit.audited_tx(self.pool, ctx.require_namespace()) as conn:
            await current_episode(conn, ctx, self.reopen_s)
            root = await repo.session_root(conn, session)
            assert root is not None  # current_episode opened the session's root
            await repo.retitle(conn, root, title)
            await audit.append(conn, ctx.namespace, ctx.principal, "episode.title",
                               str(root), {"title": title})
        return Episode(root, title, None)

    async def recent(self, ctx: CallerContext, limit: int,
                     per_episode: int) -> list[EpisodeRecap]:
        async with tenant_tx(self.pool, ctx.require_namespace()) as conn:
            return await repo.recent_with_entries(conn, limit, per_episode)
