"""Starts passes on its own: when a namespace's backlog is large, when it
has gone idle since its newest pending entry, or on a fixed schedule."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime

import asyncpg

from engram_kit.db import duty_tx, tenant_tx
from engram_kit.errors import DomainError
from engram_kit.runtime import sleep_or_stop

from . import repo_passes as repo
from .extractor import ExtractorUnavailable
from .passes import DreamPasses
from .rows import PendingWork
from .settings import DreamerSettings

log = logging.getLogger(__name__)

PAUSE_MIN_S, PAUSE_MAX_S = 30.0, 600.0


def triggers_text(s: DreamerSettings) -> str:
    parts = [f"backlog >= {s.trigger_backlog}" if s.trigger_backlog else "",
             f"idle {s.trigger_idle_s:g}s" if s.trigger_idle_s else "",
             f"every {s.trigger_schedule_s:g}s" if s.trigger_schedule_s else "", "on demand"]
    decay = (f"; each pass archives entries unused for {s.decay_unused_days:g} days "
             f"(at most {s.decay_max_per_pass})" if s.decay_unused_days else "; decay off")
    return ", ".join(p for p in parts if p) + decay


def due(s: DreamerSettings, pending: int, oldest: datetime | None, newest: datetime | None,
        last_start: datetime | None, now: datetime) -> str | None:
    """Which trigger, if any, starts a pass now. The schedule counts from the
    last pass, or from the oldest pending entry when there was none. With
    nothing pending the schedule still runs passes while decay is on (an
    idle namespace ages too)."""
    if not pending or oldest is None or newest is None:
        if s.decay_unused_days and s.trigger_schedule_s and last_start is not None and (
                now - last_start).total_seconds() >= s.trigger_schedule_s:
            return "schedule"
        return None
    if s.trigger_backlog and pending >= s.trigger_backlog:
        return "backlog"
    if s.trigger_idle_s and (now - newest).total_seconds() >= s.trigger_idle_s:
        return "idle"
    since = last_start or oldest
    if s.trigger_schedule_s and (now - since).total_seconds() >= s.trigger_schedule_s:
        return "schedule"
    return None


class Scheduler:
    def __init__(self, pool: asyncpg.Pool, s: DreamerSettings, passes: DreamPasses) -> None:
        self._pool = pool
        self._s = s
        self._passes = passes
        self._idle_scan_at = float("-inf")
        # While the extractor's server is down every pass would fail the same
        # way: wait, doubling up to PAUSE_MAX_S, instead of a failed run a tick.
        self._paused_until = float("-inf")
        self._pause_s = PAUSE_MIN_S

    async def tick(self) -> list[tuple[str, str]]:
        if time.monotonic() < self._paused_until:
            return []
        async with duty_tx(self._pool, "dream_scheduler") as conn:
            rows = await repo.pending_work(conn)
            rows += await self._idle_namespaces(conn, {r.namespace for r in rows})
        started = []
        for r in rows:
            async with tenant_tx(self._pool, r.namespace) as conn:
                last = await repo.last_started(conn)
            trigger = due(self._s, r.n, r.oldest, r.newest, last, datetime.now(UTC))
            if trigger is None:
                continue
            try:
                await self._passes.run(r.namespace, trigger)
                started.append((r.namespace, trigger))
                self._pause_s = PAUSE_MIN_S
            except ExtractorUnavailable as exc:
                self._paused_until = time.monotonic() + self._pause_s
                log.warning("scheduled passes paused", extra={"fields": {
                    "reason": exc.message, "pause_s": self._pause_s}})
                self._pause_s = min(self._pause_s * 2, PAUSE_MAX_S)
                break
            except DomainError as exc:  # e.g. a pass already running there
                log.info("scheduled pass skipped", extra={"fields": {"reason": exc.message}})
        return started

    async def _idle_namespaces(self, conn: asyncpg.Connection,
                               busy: set[str]) -> list[PendingWork]:
        """Namespaces with nothing pending, at most once per schedule period
        (decay needs passes there too). A loose index scan: one probe per
        namespace, not a scan of every entry the dreamer has seen."""
        now = time.monotonic()
        if not (self._s.decay_unused_days and self._s.trigger_schedule_s) or (
                now - self._idle_scan_at < min(self._s.trigger_schedule_s, 300)):
            return []
        self._idle_scan_at = now
        names = await repo.namespaces(conn)
        return [PendingWork(n, 0, None, None) for n in names if n not in busy]

    async def run(self, stop: asyncio.Event) -> None:
        if self._passes.extractor is None:
            return
        while not stop.is_set():
            try:
                await self.tick()
            except Exception as exc:  # keep scheduling; the next tick retries
                log.warning("scheduler tick failed", extra={"fields": {"error": repr(exc)}})
            await sleep_or_stop(stop, self._s.scheduler_interval_s)
