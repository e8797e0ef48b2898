"""Sessions close: on the client's word (session_close) or after a while
idle (the sweep), a session's episode and the episodes nested in it end,
with an extractive title and summary of its own entries; one with no
entries is removed. episode_summary reads it back."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from engram_kit import audit
from engram_kit.context import CallerContext
from engram_kit.db import duty_tx, tenant_tx
from engram_kit.errors import NotFound
from engram_kit.runtime import sleep_or_stop

from . import repo_sessions as repo
from .episodes import MAX_TITLE, _session, default_title
from .rows_episodes import SessionEpisode
from .summary import summarise
from .validation import clean_text

# A summary is taken from at most this many of the episode's entries.
MAX_ENTRIES = 200
SWEEP_BATCH = 200
SWEEPER = "system:session-idle"


@dataclass(frozen=True)
class Summary:
    id: uuid.UUID
    title: str
    summary: str
    started_at: datetime
    ended_at: datetime | None
    entries: int
    session_id: str
    pruned: bool = False


def _of(row: SessionEpisode, entries: int, summary: str | None = None,
        pruned: bool = False) -> Summary:
    return Summary(row.id, row.title, row.summary if summary is None else summary,
                   row.started_at, row.ended_at, entries, row.session_id, pruned)


async def close_root(conn: asyncpg.Connection, namespace: str, principal: str,
                     root: SessionEpisode, title: str = "") -> Summary:
    """Close a locked open root and its nested episodes; remove them when
    nothing was ever stored in them."""
    ids = await repo.tree_ids(conn, root.id)
    if await repo.entry_count(conn, ids, live=False) == 0:
        await repo.delete(conn, ids)
        await audit.append(conn, namespace, principal, "episode.prune", str(root.id))
        return _of(root, 0, "", pruned=True)
    texts = await repo.entry_texts(conn, ids, MAX_ENTRIES)
    extracted, summary = summarise(texts)
    new_title = title or (extracted if root.auto_title and extracted else root.title)
    row = await repo.close_tree(conn, ids, root.id, new_title, summary)
    entries = await repo.entry_count(conn, ids, live=True)
    await audit.append(conn, namespace, principal, "episode.close", str(root.id),
                       {"entries": entries, "episodes": len(ids)})
    return _of(row, entries)


async def resummarise(conn: asyncpg.Connection, episodes: list[str]) -> None:
    """After entries are forgotten: take the title and summary of the closed
    sessions they were in again from what is left, so no stored summary keeps
    a forgotten sentence."""
    ids = []
    for value in dict.fromkeys(episodes):
        try:
            ids.append(uuid.UUID(value))
        except (ValueError, TypeError):
            continue
    for root in await repo.summarised_roots(conn, ids) if ids else []:
        texts = await repo.entry_texts(conn, await repo.tree_ids(conn, root.id), MAX_ENTRIES)
        title, summary = summarise(texts)
        if root.auto_title:
            title = title or default_title(root.session_id)
        await repo.set_summary(conn, root.id, title if root.auto_title else root.title,
                               summary)


class Sessions:
    def __init__(self, pool: asyncpg.Pool, idle_s: float, sweep_s: float) -> None:
        self.pool = pool
        self.idle_s = idle_s
        self.sweep_s = sweep_s

    async def close(self, ctx: CallerContext, title: str) -> Summary:
        """Close the caller's session episode. Closing a closed one returns it."""
        session = _session(ctx)
        title = clean_text(title, MAX_TITLE, "title") if title.strip() else ""
        async with audit.audited_tx(self.pool, ctx.require_namespace()) as conn:
            root = await repo.open_root(conn, session)
            if root is not None:
                return await close_root(conn, ctx.namespace, ctx.principal, root, title)
            latest = await repo.latest_root(conn, session)
            if latest is None:
                raise NotFound("this session has no episode (nothing was stored in it, or "
                               "it closed empty and was removed)")
            ids = await repo.tree_ids(conn, latest.id)
            return _of(latest, await repo.entry_count(conn, ids, live=True))

    async def summary(self, ctx: CallerContext, episode_id: uuid.UUID) -> Summary:
        """A closed episode's stored summary; an open one's computed now (not stored)."""
        async with tenant_tx(self.pool, ctx.require_namespace()) as conn:
            row = await repo.get(conn, episode_id)
            if row is None:
                raise NotFound(f"no episode {episode_id} in this namespace")
            ids = await repo.tree_ids(conn, episode_id)
            entries = await repo.entry_count(conn, ids, live=True)
            if row.ended_at is not None and row.summary:
                return _of(row, entries)
            _, summary = summarise(await repo.entry_texts(conn, ids, MAX_ENTRIES))
            return _of(row, entries, summary)

    async def sweep(self) -> int:
        """Close every session idle for idle_s; returns how many closed."""
        async with duty_tx(self.pool, "episode_sweep") as conn:
            idle = await repo.idle_roots(conn, self.idle_s, SWEEP_BATCH)
        for item in idle:
            async with audit.audited_tx(self.pool, item.namespace) as conn:
                root = await repo.open_idle_root(conn, item.id, self.idle_s)
                if root is not None:
                    await close_root(conn, item.namespace, SWEEPER, root)
        return len(idle)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await sleep_or_stop(stop, self.sweep_s)
            if stop.is_set():
                return
            try:
                await self.sweep()
            except Exception as exc:  # the next sweep retries; a close is idempotent
                logging.getLogger(__name__).warning(
                    "idle sessions not closed", extra={"fields": {"error": repr(exc)}})
