"""Memory domain logic: the typed write path. No proto, no SQL."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
import numpy as np

from engram_kit import audit, idempotency
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.errors import Conflict, NotFound
from engram_kit.idempotency import Keyed
from engram_kit.outbox import enqueue
from engram_kit.vocab import Finding

from . import repo, repo_forget, repo_hygiene
from . import repo_vector_queue as vector_queue
from .context_vectors import Preceding, context_fields, preceding_entries
from .episodes import current_episode
from .events import entry_stored_event
from .findings import Neighbour, Typed, classify
from .rows import EntryRow, TombstoneRow
from .settings import MemorySettings
from .validation import (
    clean_origin,
    clean_source,
    clean_tags,
    clean_text,
)

_SPACE = re.compile(r"\s+")


def normalised(text: str) -> str:
    return _SPACE.sub(" ", text.strip().lower())


def normalised_hash(text: str) -> str:
    """Finds a live restatement; it sits beside the text it hashes."""
    return hashlib.sha256(normalised(text).encode()).hexdigest()


def forgotten_digest(text: str) -> str:
    """What outlives an entry (its tombstone, its audit rows): a keyed digest,
    so the words cannot be recovered from it by guessing."""
    return audit.content_digest(normalised(text))


@dataclass
class StoreInput:
    text: str
    source: str = ""
    tags: list[str] = field(default_factory=list)
    origin: str = ""
    episode: str = ""
    valid_from: datetime | None = None
    supersedes: uuid.UUID | None = None  # explicit replacement
    reason: str = ""
    consolidates: list[uuid.UUID] = field(default_factory=list)  # replaces all of these


@dataclass
class StoreResult:
    id: uuid.UUID
    finding: Finding
    entry: EntryRow
    related: list[uuid.UUID] = field(default_factory=list)
    superseded: list[uuid.UUID] = field(default_factory=list)
    contested_with: list[uuid.UUID] = field(default_factory=list)
    embedded: bool = False
    reasserts_forgotten: TombstoneRow | None = None


def _replay_of(done: StoreResult) -> dict[str, Any]:
    return {"id": str(done.id), "finding": done.finding, "embedded": done.embedded,
            **{k: [str(i) for i in getattr(done, k)]
               for k in ("related", "superseded", "contested_with")}}


async def _replayed(conn: asyncpg.Connection, earlier: dict[str, Any],
                    digest: str) -> StoreResult:
    """The first call's answer, with the entry as it is now."""
    row = await repo.get_entry(conn, uuid.UUID(earlier["id"]))
    if row is None:
        raise NotFound("the entry this request stored is gone (forgotten since)")
    ids = {k: [uuid.UUID(i) for i in earlier[k]] for k in ("related", "superseded",
                                                           "contested_with")}
    finding = Finding(earlier["finding"])
    return StoreResult(row.id, finding, row, embedded=earlier["embedded"],
                       reasserts_forgotten=await repo_forget.tombstone_for_digest(conn, digest)
                       if finding is not Finding.RESTATEMENT else None, **ids)


@dataclass(frozen=True)
class _Cleaned:
    """A store's inputs, checked, and what is derived from its text."""
    namespace: str
    text: str
    tags: list[str]
    source: str
    origin: str
    text_hash: str
    digest: str
    keyed: Keyed | None


@dataclass(frozen=True)
class _Prepared:
    replayed: StoreResult | None = None
    restates: bool = False  # a live entry says the same: no vector needed
    resolved: bool = False  # whether `episode` is the write's (else the write resolves it)
    episode: str | None = None
    preceding: Preceding | None = None


def _may_restate(data: StoreInput) -> bool:
    """A replacement always writes; a plain store of a live text confirms it."""
    return data.supersedes is None and not data.consolidates


class MemoryService:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient, settings: MemorySettings,
                 on_outbox_write: Callable[[], None],
                 on_vector_queued: Callable[[], None]) -> None:
        self.pool = pool
        self.embedder = embedder
        self.s = settings
        self._on_outbox_write = on_outbox_write
        self._on_vector_queued = on_vector_queued  # wakes the sweep that fills it

    async def store(self, ctx: CallerContext, data: StoreInput) -> StoreResult:
        """Three steps: the exits that need no vector and the episode (one
        transaction), the encode (outside any), the audited write. The write
        checks the exits again under its locks: a repeat may have landed
        between."""
        w = self._cleaned(ctx, data)
        ready = await self._prepare(ctx, data, w)
        if ready.replayed is not None:
            return ready.replayed
        vector = None if ready.restates else \
            await self.embedder.embed_one(w.text, ctx, query=False)
        async with audit.audited_tx(self.pool, w.namespace) as conn:
            if (done := await self._exit_early(conn, ctx, data, w)) is not None:
                return done
            episode = ready.episode if ready.resolved else \
                await self._episode(conn, ctx, data)  # the restated entry went meanwhile
            done, context_queued = await self._write(conn, ctx, data, w, vector,
                                                     episode, ready.preceding)
        self._on_outbox_write()
        if context_queued:
            self._on_vector_queued()
        return done

    def _cleaned(self, ctx: CallerContext, data: StoreInput) -> _Cleaned:
        text = clean_text(data.text, self.s.max_text_chars, "text")
        return _Cleaned(ctx.require_namespace(), text, clean_tags(data.tags, self.s),
                        clean_source(data.source, self.s), clean_origin(data.origin),
                        normalised_hash(text), forgotten_digest(text),
                        Keyed.of("Store", ctx.idempotency_key, dataclasses.asdict(data)))

    async def _prepare(self, ctx: CallerContext, data: StoreInput, w: _Cleaned) -> _Prepared:
        """A replay answered, a restatement foreseen (no vector needed), or
        the episode the write lands in, resolved once, with its last lines."""
        async with tenant_tx(self.pool, w.namespace) as conn:
            if (earlier := await idempotency.recorded(conn, w.keyed)) is not None:
                return _Prepared(replayed=await _replayed(conn, earlier, w.digest))
            if _may_restate(data) and await repo.find_live_by_hash(conn, w.text_hash):
                return _Prepared(restates=True)
            episode = await self._episode(conn, ctx, data)
            preceding = await preceding_entries(conn, episode) \
                if self.s.context_vector_weight > 0 else None
            return _Prepared(episode=episode, resolved=True, preceding=preceding)

    async def _episode(self, conn: asyncpg.Connection, ctx: CallerContext,
                       data: StoreInput) -> str | None:
        return data.episode or await current_episode(conn, ctx, self.s.session_reopen_s)

    async def _exit_early(self, conn: asyncpg.Connection, ctx: CallerContext,
                          data: StoreInput, w: _Cleaned) -> StoreResult | None:
        """A replay or a restatement (confirmed) answers without a write;
        otherwise the entries this write replaces are locked live."""
        if (earlier := await idempotency.replay(conn, w.keyed)) is not None:
            return await _replayed(conn, earlier, w.digest)
        if data.supersedes is not None:
            await self._lock_live_target(conn, data.supersedes)
        await self._lock_live_targets(conn, data.consolidates)
        same = await repo.find_live_by_hash(conn, w.text_hash) if _may_restate(data) else None
        if same is None:
            return None
        await repo.confirm(conn, same.id)
        await audit.append(conn, w.namespace, ctx.principal, "entry.confirm",
                           str(same.id), {"text_hmac": w.digest})
        done = StoreResult(same.id, Finding.RESTATEMENT, same, embedded=same.embedded)
        await idempotency.remember(conn, w.namespace, w.keyed, _replay_of(done))
        return done

    async def _write(self, conn: asyncpg.Connection, ctx: CallerContext, data: StoreInput,
                     w: _Cleaned, vector: np.ndarray | None, episode: str | None,
                     preceding: Preceding | None) -> tuple[StoreResult, bool]:
        """The new entry, what it replaces, its event, queue rows and audit;
        True when its context vector is queued."""
        typed = await self._type(conn, w.text, vector, data)
        entry = repo.NewEntry(
            id=uuid.uuid4(), namespace=w.namespace, text=w.text, text_hash=w.text_hash,
            source=w.source, tags=w.tags, origin=w.origin, episode=episode,
            writer_principal=ctx.principal, client_id=ctx.client_id,
            session_id=ctx.session_id, valid_from=data.valid_from or datetime.now(UTC),
            embedding=vector, **context_fields(preceding, episode),
        )
        row = await repo.insert_entry(conn, entry)
        await self._apply(conn, ctx, entry.id, typed, data.reason)
        forgotten = await repo_forget.tombstone_for_digest(conn, w.digest)
        event_id, subject, payload = entry_stored_event(
            ctx, entry.id, typed.finding, embedded=vector is not None,
            superseded=typed.supersedes, contested=typed.contradicts,
        )
        await enqueue(conn, event_id, w.namespace, subject, payload)
        if vector is None:
            await vector_queue.enqueue(conn, vector_queue.ENTRIES, w.namespace, [entry.id])
        if entry.context_of is not None:
            await vector_queue.enqueue(conn, vector_queue.CONTEXTS, w.namespace, [entry.id])
        action = "entry.consolidate" if data.consolidates else "entry.store"
        await audit.append(conn, w.namespace, ctx.principal, action, str(entry.id), {
            "finding": typed.finding, "text_hmac": w.digest,
            "superseded": [str(i) for i in typed.supersedes], "source": w.source})
        done = StoreResult(entry.id, typed.finding, row, related=typed.related,
                           superseded=typed.supersedes, contested_with=typed.contradicts,
                           embedded=vector is not None, reasserts_forgotten=forgotten)
        await idempotency.remember(conn, w.namespace, w.keyed, _replay_of(done))
        return done, entry.context_of is not None

    async def _lock_live_target(self, conn: asyncpg.Connection, target: uuid.UUID) -> None:
        """Fail closed: an explicit replacement needs one live target."""
        row = await repo.get_entry(conn, target, for_update=True)
        if row is None:
            raise NotFound(f"entry {target} does not exist in this namespace", field="entry_id")
        if row.status != "live":
            by = f" by {row.superseded_by}" if row.superseded_by else ""
            raise Conflict(f"entry {target} is already {row.status}{by}; "
                           "supersede the current entry instead", field="entry_id")

    async def _lock_live_targets(self, conn: asyncpg.Connection,
                                 targets: list[uuid.UUID]) -> None:
        """Fail closed: a consolidation needs every named entry live."""
        if not targets:
            return
        rows = {r.id: r for r in await repo_hygiene.lock_entries(conn, targets)}
        for target in targets:
            row = rows.get(target)
            if row is None:
                raise NotFound(f"entry {target} does not exist in this namespace",
                               field="entry_ids")
            if row.status != "live":
                by = f" by {row.superseded_by}" if row.superseded_by else ""
                raise Conflict(f"entry {target} is already {row.status}{by}; "
                               "consolidate current entries only", field="entry_ids")

    async def _type(self, conn: asyncpg.Connection, text: str, vector: np.ndarray | None,
                    data: StoreInput) -> Typed:
        if data.consolidates:
            return Typed(Finding.UPDATE, supersedes=list(data.consolidates))
        if data.supersedes is not None:
            return Typed(Finding.UPDATE, supersedes=[data.supersedes])
        if vector is None:
            return Typed(Finding.NEW)
        near = await repo.nearest_live_texts(conn, vector, 5)
        return classify(text, [Neighbour(*r) for r in near],
                        subject_distance=self.s.subject_distance,
                        paraphrase_distance=self.s.paraphrase_distance)

    async def _apply(self, conn: asyncpg.Connection, ctx: CallerContext, new_id: uuid.UUID,
                     typed: Typed, reason: str) -> None:
        for old in list(typed.supersedes):
            old_text = await repo.retire_live(conn, old, "superseded", new_id)
            if old_text is None:  # retired meanwhile by another write: nothing to replace
                typed.supersedes.remove(old)
                continue
            await repo.add_version(conn, ctx.namespace, old, old_text, ctx.principal,
                                   reason or "superseded", "superseded")
            if old == typed.supersedes[0]:  # one column; every link is in entry_links
                await repo.set_supersedes(conn, new_id, old)
            await repo.link(conn, ctx.namespace, new_id, old, "supersedes")
        if typed.finding is Finding.UPDATE and not typed.supersedes:
            typed.finding = Finding.NEW
        for other in typed.contradicts:
            await repo.link(conn, ctx.namespace, new_id, other, "contradicts")
        for other in typed.related:
            await repo.link(conn, ctx.namespace, new_id, other, "related")
