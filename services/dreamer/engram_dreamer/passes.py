"""A dream pass: pending entries -> extractor -> anchor hygiene -> cortex,
journaled as a run whose cortex writes form one revertible batch.

Single-flight per namespace. A run left `running` by a crash is reverted
(its cortex batch undone) and marked `aborted` before the next pass, so a
killed pass leaves nothing half-applied."""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import asyncpg

from engram.v1 import cortex_pb2
from engram_kit.db import pooled, tenant_tx
from engram_kit.errors import Conflict, DomainError, NotFound, NotImplementedYet

from . import metrics
from . import repo_passes as repo
from .backends import Backends
from .extractor import Candidate, EntryText, ExtractionFailed, Extractor, anchored
from .proposals import Link, Proposals, entries_merge_link, fact_merge_link, merge_link
from .rows import RunRow
from .settings import DreamerSettings

log = logging.getLogger(__name__)
NO_EXTRACTOR = ("no extractor is configured (ENGRAM_EXTRACTOR=none): nothing is consolidated; "
                "set it to rules or openai")
MAX_MARKS = 1000  # per pass; the rest wait for the next
# items() is typed with plain ints; they are the FactKind values the field takes.
KIND_VALUES = {n.removeprefix("FACT_KIND_"): cast(cortex_pb2.FactKind, v)
               for n, v in cortex_pb2.FactKind.items() if v}


async def _unlock_or_drop(conn: asyncpg.Connection, key: str) -> None:
    """Release the pass's session lock. The pool does not reset sessions
    (engram_kit.db), so if the unlock cannot run (cancelled, connection
    broken) the connection is dropped: its session, and the lock, end."""
    try:
        await repo.session_unlock(conn, key)
    except BaseException:
        conn.terminate()
        raise


def observe(run: RunRow, counts: dict[str, Any]) -> None:
    """Metrics of a committed pass (after its commit)."""
    metrics.RUNS.labels("committed", run.trigger).inc()
    metrics.RUN_SECONDS.observe(counts.get("duration_s", 0.0))
    for action, n in counts.get("actions", {}).items():
        metrics.FACTS.labels(action).inc(n)
    metrics.DROPPED.labels("unanchored").inc(run.dropped_unanchored)
    metrics.DROPPED.labels("quarantined").inc(run.quarantined)
    for kind, n in counts.get("proposals", {}).items():
        metrics.PROPOSALS.labels(kind).inc(n)
    metrics.ARCHIVED.inc(counts.get("archived", 0))
    metrics.LESSONS_MERGED.inc(counts.get("lessons_merged", 0))


class DreamPasses:
    def __init__(self, pool: asyncpg.Pool, settings: DreamerSettings,
                 extractor: Extractor | None, backends: Backends,
                 proposals: Proposals) -> None:
        self._pool = pool
        self.proposals = proposals
        self._s = settings
        self.extractor = extractor
        self._backends = backends
        self._running: set[str] = set()

    @asynccontextmanager
    async def _single_flight(self, ns: str) -> AsyncIterator[None]:
        if ns in self._running:
            raise Conflict(f"a dream pass is already running in {ns}")
        self._running.add(ns)
        try:
            async with pooled(self._pool) as conn:
                key = f"dream/{ns}"
                if not await repo.try_session_lock(conn, key):
                    raise Conflict(f"a dream pass is already running in {ns}")
                try:
                    yield
                finally:
                    await _unlock_or_drop(conn, key)
        finally:
            self._running.discard(ns)

    def _configured(self) -> Extractor:
        if self.extractor is None:
            raise NotImplementedYet(NO_EXTRACTOR)
        return self.extractor

    async def run(self, ns: str, trigger: str) -> RunRow:
        extractor = self._configured()
        async with self._single_flight(ns):
            await self._recover(ns)
            run_id = uuid.uuid4()
            async with tenant_tx(self._pool, ns) as conn:
                await repo.start_run(conn, ns, run_id, trigger, extractor.name,
                                     extractor.model)
                ids = await repo.pending(conn, self._s.pass_max_entries)
            started = time.perf_counter()
            log.info("dream pass started", extra={"fields": {
                "namespace": ns, "run_id": str(run_id), "trigger": trigger, "entries": len(ids)}})
            try:
                return await self._pass(ns, run_id, ids, started)
            except Exception as exc:
                await self._undo(ns, run_id)
                async with tenant_tx(self._pool, ns) as conn:
                    await repo.finish_run(conn, run_id, "failed", {
                        "entries": len(ids), "error_detail": f"{type(exc).__name__}: {exc}"})
                metrics.RUNS.labels("failed", trigger).inc()
                raise

    async def _recover(self, ns: str) -> None:
        try:  # approvals a failure left half-applied are finished first
            await self.proposals.resume(ns)
        except DomainError as exc:
            log.warning("approved proposals not applied yet",
                        extra={"fields": {"namespace": ns, "error": exc.message}})
        async with tenant_tx(self._pool, ns) as conn:
            stale = await repo.stale_runs(conn)
        for run_id in stale:
            await self._undo(ns, run_id)
            async with tenant_tx(self._pool, ns) as conn:
                await repo.finish_run(conn, run_id, "aborted", {
                    "error_detail": "the pass stopped before committing; its cortex writes "
                                    "were reverted, what it archived was restored, and its "
                                    "entries stay pending"})
            metrics.RUNS.labels("aborted", "").inc()

    async def _undo(self, ns: str, run_id: uuid.UUID) -> int:
        """Revert the run's cortex batch (refused, changing nothing, when later
        writes depend on it), then bring back what it archived."""
        try:
            rows = (await self._backends.revert(ns, str(run_id))).rows
        except NotFound:
            rows = 0  # it wrote nothing to cortex
        return rows + await self._backends.unarchive(ns, str(run_id))

    async def _decay(self, ns: str, run_id: uuid.UUID) -> int:
        if not self._s.decay_unused_days:
            return 0
        archived = await self._backends.archive_stale(
            ns, self._s.decay_unused_days * 86400, self._s.decay_max_per_pass, str(run_id))
        return len(archived)

    async def _consolidate(self, ns: str, run_id: uuid.UUID, written: list
                           ) -> tuple[list[Link], list[tuple[str, str]], int]:
        """Work cortex events marked, plus the entities this pass wrote:
        near-duplicate entities, facts and memory entries become merge
        proposals; near-identical
        lessons are merged (journaled in the run's batch, so revertible)."""
        async with tenant_tx(self._pool, ns) as conn:
            marks = [(m.kind, m.key) for m in await repo.open_marks(conn, MAX_MARKS)]
        entities = sorted({key for kind, key in marks if kind == "entity"}
                          | {c.entity for _, c, _ in written})
        merges = []
        for i in range(0, len(entities), 200):
            found = await self._backends.near_duplicates(ns, entities[i:i + 200])
            merges += [merge_link(p) for p in found.entities]
            merges += [fact_merge_link(p) for p in found.facts]
        if self._s.propose_entry_merges:
            found_entries = await self._backends.entry_clusters(
                ns, self._s.entry_merge_min_similarity)
            merges += [entries_merge_link(c) for c in found_entries.clusters]
        lessons = any(kind == "lessons" for kind, _ in marks)
        merged = await self._backends.merge_lessons(ns, str(run_id)) if lessons else 0
        return merges, marks, merged

    async def _pass(self, ns: str, run_id: uuid.UUID, ids: list[uuid.UUID],
                    started: float) -> RunRow:
        """Batch by batch: extract, keep anchored candidates, write them, so a
        long pass makes progress (and a killed one has a journal to undo)."""
        entries, origins = await self._fetch(ns, ids)
        texts = {e.id: e.text for e in entries}
        size = max(1, self._s.llm_batch)
        candidates = 0
        kept_all: list[Candidate] = []
        quarantined: dict[str, str] = {}
        written: list = []
        errors: list[str] = []
        for i in range(0, len(entries), size):
            found, failed = await self._extract(entries[i:i + size])
            quarantined |= failed
            candidates += len(found)
            kept = [c for c in found if anchored(c.quote, texts.get(c.entry_id, ""))]
            kept_all += kept
            done, errs = await self._write(ns, run_id, kept, origins)
            written += done
            errors += errs
        log.info("dream pass wrote facts", extra={"fields": {
            "run_id": str(run_id), "written": len(written), "errors": len(errors)}})
        counts = {"actions": dict(Counter(action for _, _, action in written)),
                  "kinds": dict(Counter(c.kind for _, c, _ in written)),
                  "duration_s": round(time.perf_counter() - started, 3)}
        stats: dict[str, Any] = {
            "entries": len(ids), "candidates": candidates,
            "dropped_unanchored": candidates - len(kept_all), "quarantined": len(quarantined),
            "inputs": ids, "facts_written": len(written), "errors": len(errors),
            "counts": counts, "error_detail": "; ".join(errors[:5])}
        links = await self.proposals.candidates(ns, written)
        merges, marks, counts["lessons_merged"] = await self._consolidate(ns, run_id, written)
        counts["archived"] = await self._decay(ns, run_id)
        async with tenant_tx(self._pool, ns) as conn:
            counts["proposals"] = await self.proposals.record(conn, ns, run_id, links + merges)
            stats["proposals"] = sum(counts["proposals"].values())
            await repo.settle_marks(conn, run_id, marks)
            for fact_id, c, action in written:
                await repo.record_fact(conn, ns, run_id, fact_id, uuid.UUID(c.entry_id),
                                       action, c.kind)
            ok = [i for i in ids if str(i) not in quarantined]
            await repo.settle_entries(conn, run_id, ok, {uuid.UUID(k): v for k, v in
                                                         quarantined.items()}, ns)
            row = await repo.finish_run(conn, run_id, "committed", stats)
        observe(row, counts)
        return row

    async def _fetch(self, ns: str, ids: list[uuid.UUID]) -> tuple[list[EntryText],
                                                                   dict[str, str]]:
        entries, origins = [], {}
        for entry_id in ids:
            try:
                got = await self._backends.entry(ns, str(entry_id))
            except NotFound:
                continue  # forgotten since: nothing to consolidate
            e = got.entry
            if e.status not in ("live", "active", "") or "status" in e.tags:
                continue
            entries.append(EntryText(str(entry_id), e.text))
            origins[str(entry_id)] = e.origin
        return entries, origins

    async def _extract(self, batch: list[EntryText]) -> tuple[list[Candidate],
                                                              dict[str, str]]:
        """A failing batch is split in halves; an entry that fails alone is
        quarantined with the reason."""
        extractor = self._configured()
        out: list[Candidate] = []
        quarantined: dict[str, str] = {}
        queue = [batch]
        while queue:
            part = queue.pop(0)
            log.info("extracting", extra={"fields": {"entries": [e.id for e in part]}})
            try:
                out += await extractor.extract(part)
            except ExtractionFailed as exc:
                if len(part) == 1:
                    quarantined[part[0].id] = str(exc)[:500]
                else:
                    half = len(part) // 2
                    queue[:0] = [part[:half], part[half:]]
        return out, quarantined

    async def _write(self, ns: str, run_id: uuid.UUID, kept: list[Candidate],
                     origins: dict[str, str]) -> tuple[list, list[str]]:
        written, errors = [], []
        extractor = self._configured()
        name = extractor.name
        captured_by = f"dreamer/{name}" + (f":{extractor.model}" if extractor.model else "")
        for c in kept:
            origin = "assistant" if name == "openai" else (
                "assistant" if origins.get(c.entry_id) == "assistant" else "agent")
            request = cortex_pb2.SetFactRequest(
                entity=c.entity, attribute=c.attribute, value=c.value, kind=KIND_VALUES[c.kind],
                evidence=cortex_pb2.Evidence(quote=c.quote, source_type="memory_entry",
                                             source_ref=c.entry_id, captured_by=captured_by),
                origin=origin, batch=str(run_id))
            if c.valid_from:
                request.valid_from.FromJsonString(f"{c.valid_from}T00:00:00Z")
            try:
                reply = await self._backends.set_fact(ns, request)
            except DomainError as exc:
                errors.append(f"{c.entity}.{c.attribute}: {exc.message}")
                continue
            written.append((uuid.UUID(reply.fact.id), c, reply.action))
        return written, errors

    async def rollback(self, ns: str, run_id: uuid.UUID) -> tuple[int, RunRow]:
        async with self._single_flight(ns):
            async with tenant_tx(self._pool, ns) as conn:
                row = await repo.run(conn, run_id)
            if row is None:
                raise NotFound(f"no dream run {run_id}")
            if row.status != "committed":
                raise Conflict(f"run {run_id} is {row.status}; only a committed run can "
                               "be rolled back")
            async with tenant_tx(self._pool, ns) as conn:  # refuses if one was decided
                await self.proposals.revert_run(conn, run_id)
            reverted = await self._undo(ns, run_id)  # cortex refuses if later writes depend
            async with tenant_tx(self._pool, ns) as conn:
                await self.proposals.revert_run(conn, run_id)
                await repo.reopen_entries(conn, run_id)
                await repo.reopen_marks(conn, run_id)
                done = await repo.mark_rolled_back(conn, run_id)
            return reverted, done


