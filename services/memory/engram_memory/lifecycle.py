"""Lifecycle operations: supersede, forget, reinforce, get, recent."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import NoReturn

import asyncpg

from engram_kit import audit, idempotency
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument, NotFound
from engram_kit.idempotency import Keyed
from engram_kit.outbox import enqueue

from . import repo, repo_forget
from .decay import UseMarks
from .events import entries_forgotten_event
from .rows import EntryRow, FullEntryRow, LinkRow, VersionRow
from .service import MemoryService, StoreInput, StoreResult, forgotten_digest
from .sessions import resummarise
from .validation import clean_source, clean_tags, clean_text, clean_top_k


@dataclass
class ForgetFilter:
    entry_id: uuid.UUID | None = None
    tags: list[str] = field(default_factory=list)
    source: str = ""
    before: datetime | None = None


@dataclass
class ForgetResult:
    forgotten: list[uuid.UUID]
    tombstones: list[uuid.UUID]


@dataclass
class EntryDetail:
    entry: FullEntryRow
    versions: list[VersionRow]
    links: list[LinkRow]


class Lifecycle:
    def __init__(self, memory: MemoryService, uses: UseMarks | None = None) -> None:
        self.memory = memory
        self.uses = uses
        self.pool = memory.pool
        self.s = memory.s

    async def supersede(self, ctx: CallerContext, entry_id: uuid.UUID, new_text: str,
                        reason: str) -> StoreResult:
        """Replace a live entry; the old one stays as history. Fails closed on
        a missing or already-retired target."""
        return await self.memory.store(ctx, StoreInput(text=new_text, supersedes=entry_id,
                                                       reason=reason or "superseded"))

    async def forget(self, ctx: CallerContext, what: ForgetFilter, reason: str) -> ForgetResult:
        namespace = ctx.require_namespace()
        reason = clean_text(reason, 500, "reason")
        filters = repo.Filters(clean_tags(what.tags, self.s), clean_source(what.source, self.s),
                               None, what.before)
        if what.entry_id is None and not (filters.tags or filters.source or what.before):
            raise InvalidArgument("forget needs an entry_id or at least one filter "
                                  "(tags, source, before)", field="entry_id")
        async with audit.audited_tx(self.pool, namespace) as conn:
            if what.entry_id is not None:
                rows = await repo_forget.forget_candidate(conn, what.entry_id)
                if not rows:
                    await self._explain_missing(conn, what.entry_id)
            else:
                rows = await repo_forget.select_for_forget(conn, filters,
                                                           self.s.max_forget_batch + 1)
                if len(rows) > self.s.max_forget_batch:
                    raise InvalidArgument(
                        f"the filter matches more than {self.s.max_forget_batch} entries; "
                        "narrow it", field="tags")
            ids = [r.id for r in rows]
            stones = [await repo_forget.add_tombstone(conn, namespace, r.id,
                                                      forgotten_digest(r.text), reason,
                                                      ctx.principal)
                      for r in rows]
            if ids:
                await repo_forget.delete_entries(conn, ids)
                await resummarise(conn, [r.episode for r in rows if r.episode])
                event_id, subject, payload = entries_forgotten_event(ctx, ids, reason)
                await enqueue(conn, event_id, namespace, subject, payload)
                await audit.append(conn, namespace, ctx.principal, "entry.forget", "",
                                   {"ids": [str(i) for i in ids], "reason": reason})
        return ForgetResult(ids, stones)

    async def reinforce(self, ctx: CallerContext, entry_id: uuid.UUID) -> int:
        """One confirmation per call; a keyed retry gets the first count."""
        keyed = Keyed.of("Reinforce", ctx.idempotency_key, str(entry_id))
        async with audit.audited_tx(self.pool, ctx.require_namespace()) as conn:
            if (earlier := await idempotency.replay(conn, keyed)) is not None:
                return earlier["confirmations"]
            confirmations = await repo.reinforce(conn, entry_id)
            if confirmations is None:
                await self._explain_missing(conn, entry_id)
            await audit.append(conn, ctx.namespace, ctx.principal, "entry.reinforce",
                               str(entry_id))
            await idempotency.remember(conn, ctx.namespace, keyed,
                                       {"confirmations": confirmations})
        return confirmations

    async def get(self, ctx: CallerContext, entry_id: uuid.UUID,
                  peek: bool = False) -> EntryDetail:
        """An agent reading an entry is a use (it keeps it from decay); a
        background reader peeks, and a read-only grant marks nothing."""
        async with tenant_tx(self.pool, ctx.require_namespace()) as conn:
            row = await repo.get_entry(conn, entry_id)
            if row is None:
                await self._explain_missing(conn, entry_id)
            detail = EntryDetail(row, await repo.versions(conn, entry_id),
                                 await repo.links_of(conn, entry_id))
        if self.uses is not None and not peek and not ctx.read_only:
            self.uses.mark(ctx.namespace, [entry_id])
        return detail

    async def recent(self, ctx: CallerContext, n: int, tags: list[str],
                     source: str) -> list[EntryRow]:
        limit = clean_top_k(n, self.s)
        filters = repo.Filters(clean_tags(tags, self.s), clean_source(source, self.s), None, None)
        async with tenant_tx(self.pool, ctx.require_namespace()) as conn:
            return await repo.recent_live(conn, filters, limit)

    @staticmethod
    async def _explain_missing(conn: asyncpg.Connection, entry_id: uuid.UUID) -> NoReturn:
        stone = await repo_forget.tombstone_for_entry(conn, entry_id)
        if stone is not None:
            raise NotFound(f"entry {entry_id} was forgotten at "
                           f"{stone.forgotten_at.isoformat()} ({stone.reason})",
                           field="entry_id")
        row = await repo.get_entry(conn, entry_id)
        if row is not None:
            raise InvalidArgument(f"entry {entry_id} is {row.status}, not live",
                                  field="entry_id")
        raise NotFound(f"entry {entry_id} does not exist in this namespace", field="entry_id")
