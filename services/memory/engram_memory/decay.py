"""Decay, rescue and use. An entry counts as used when an agent reads it
(get) or a search serves it; uses are coalesced in memory and flushed every
few seconds, so reads never wait on a write (decay is measured in days, a
use lost in a crash costs nothing). Archiving is the dreamer's call; the
rule of what is stale lives here, with the data."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from engram_kit import audit
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound
from engram_kit.runtime import sleep_or_stop

from . import repo, repo_decay
from .validation import clean_text

MAX_ARCHIVE_PER_CALL = 1000


@dataclass(frozen=True)
class Rescued:
    entry_id: uuid.UUID
    was_archived: bool
    rescued_at: datetime


class UseMarks:
    """Coalesces "this entry was used" per namespace; one UPDATE per flush."""

    def __init__(self, pool: asyncpg.Pool, flush_s: float = 5.0) -> None:
        self._pool = pool
        self._flush_s = flush_s
        self._pending: dict[str, set[uuid.UUID]] = defaultdict(set)

    def mark(self, namespace: str, ids: list[uuid.UUID]) -> None:
        if ids:
            self._pending[namespace].update(ids)

    async def flush(self) -> int:
        pending, self._pending = self._pending, defaultdict(set)
        n = 0
        for namespace, ids in pending.items():
            async with tenant_tx(self._pool, namespace) as conn:
                await repo_decay.mark_used(conn, list(ids))
            n += len(ids)
        return n

    async def run(self, stop: asyncio.Event) -> None:
        """Flushes once more after stop is set (sleep_or_stop returns early)."""
        while not stop.is_set():
            await sleep_or_stop(stop, self._flush_s)
            try:
                await self.flush()
            except Exception as exc:  # marks are advisory: log, keep going
                logging.getLogger(__name__).warning(
                    "use marks not flushed", extra={"fields": {"error": repr(exc)}})


class Decay:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def archive_stale(self, ctx: CallerContext, unused_for_s: float, limit: int,
                            batch: str) -> list[uuid.UUID]:
        ns = ctx.require_namespace()
        if unused_for_s < 3600:
            raise InvalidArgument("unused_for_s is at least 3600 (one hour)",
                                  field="unused_for_s")
        if not 1 <= limit <= MAX_ARCHIVE_PER_CALL:
            raise InvalidArgument(f"limit is 1-{MAX_ARCHIVE_PER_CALL}", field="limit")
        batch = clean_text(batch, 100, "batch")
        async with audit.audited_tx(self._pool, ns) as conn:
            ids = await repo_decay.archive_stale(conn, unused_for_s, limit, batch)
            if ids:
                await audit.append(conn, ns, ctx.principal, "entry.archive", batch,
                                   {"ids": [str(i) for i in ids],
                                    "unused_for_s": unused_for_s})
        return ids

    async def unarchive(self, ctx: CallerContext, batch: str) -> int:
        """Undo one batch's archiving; entries rescued or forgotten since are
        left as they are. Returns how many came back."""
        ns = ctx.require_namespace()
        batch = clean_text(batch, 100, "batch")
        async with audit.audited_tx(self._pool, ns) as conn:
            restored = await repo_decay.unarchive(conn, batch)
            if restored:
                await audit.append(conn, ns, ctx.principal, "entry.unarchive", batch,
                                   {"ids": [str(i) for i in restored]})
        return len(restored)

    async def rescue(self, ctx: CallerContext, entry_id: uuid.UUID, reason: str) -> Rescued:
        ns = ctx.require_namespace()
        reason = clean_text(reason, 500, "reason") if reason.strip() else ""
        async with audit.audited_tx(self._pool, ns) as conn:
            row = await repo_decay.rescue(conn, entry_id, ctx.principal, reason)
            if row is None:
                current = await repo.get_entry(conn, entry_id)
                if current is None:
                    raise NotFound(f"no entry {entry_id} in this namespace")
                raise Conflict(f"entry {entry_id} is {current.status}; only a live or "
                               "archived entry can be rescued")
            await audit.append(conn, ns, ctx.principal, "entry.rescue", str(entry_id),
                               {"was": row.was, "reason": reason})
        return Rescued(entry_id, row.was == "archived", row.rescued_at)

