"""The board cleans up after itself: bodies of acknowledged mail expire (the
row keeps its keyed digest, the audit row the digests), agents not seen for
a while are retired, and expired grants nobody waits for are freed. Each
tick handles a bounded batch; each namespace's share is one audited
transaction, counted in Prometheus. The clock is injected (tests)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import asyncpg
from prometheus_client import Counter

from engram_kit import audit as audit_log
from engram_kit.db import duty_tx

from . import repo, repo_sweep
from .rows import ErasedBody, ExpiredLease
from .settings import CoordinationSettings

log = logging.getLogger(__name__)

SWEPT = Counter("engram_board_swept_total",
                "Rows the board sweep tidied, by kind (mail_body, agent, lease)", ["kind"])
SWEEPS = Counter("engram_board_sweeps_total", "Board sweep ticks that found work")
SWEEPER = ("board", "board.sweep")  # principal, agent id in audit rows


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class SweepResult:
    mail_bodies: int = 0
    agents: int = 0
    leases: int = 0
    namespaces: list[str] = field(default_factory=list)


class BoardSweep:
    def __init__(self, pool: asyncpg.Pool, settings: CoordinationSettings,
                 now: Callable[[], datetime] = utc_now) -> None:
        self._pool = pool
        self._s = settings
        self._now = now

    async def sweep_once(self) -> SweepResult:
        """One tick: find the namespaces with something due (under the duty),
        then tidy each in its own audited transaction."""
        now = self._now()
        body_before, agent_before = self._cutoffs(now)
        async with duty_tx(self._pool, "board_sweep") as conn:
            due = await repo_sweep.due_namespaces(conn, body_before, agent_before, now,
                                                  self._s.board_sweep_batch)
        done = SweepResult(namespaces=due)
        for namespace in due:
            one = await self.sweep_namespace(namespace, now)
            done.mail_bodies += one.mail_bodies
            done.agents += one.agents
            done.leases += one.leases
        if due:
            SWEEPS.inc()
        return done

    async def sweep_namespace(self, namespace: str, now: datetime | None = None) -> SweepResult:
        now = now or self._now()
        body_before, agent_before = self._cutoffs(now)
        batch = self._s.board_sweep_batch
        async with audit_log.audited_tx(self._pool, namespace) as conn:
            bodies = await repo_sweep.expire_bodies(conn, body_before, now, batch)
            agents = await repo_sweep.retire_agents(conn, agent_before, batch)
            leases = await repo_sweep.expire_leases(conn, now, batch)
            await self._audit(conn, namespace, bodies, agents, leases)
        for kind, n in (("mail_body", bodies), ("agent", agents), ("lease", leases)):
            SWEPT.labels(kind=kind).inc(len(n))
        return SweepResult(len(bodies), len(agents), len(leases), [namespace])

    def _cutoffs(self, now: datetime) -> tuple[datetime, datetime]:
        return (now - timedelta(seconds=self._s.mail_body_ttl_s),
                now - timedelta(seconds=self._s.agent_retire_after_s))

    async def _audit(self, conn: asyncpg.Connection, namespace: str,
                     bodies: list[ErasedBody], agents: list[str],
                     leases: list[ExpiredLease]) -> None:
        principal, agent_id = SWEEPER
        if bodies:
            await repo.audit(conn, namespace, principal, agent_id, "mail.body_expire", "", {
                "ids": [str(b.id) for b in bodies],
                "body_hmacs": [b.body_hmac for b in bodies],
                "after_s": self._s.mail_body_ttl_s})
        if agents:
            await repo.audit(conn, namespace, principal, agent_id, "agent.retire", "", {
                "agents": agents, "unseen_s": self._s.agent_retire_after_s})
        if leases:
            await repo.audit(conn, namespace, principal, agent_id, "lease.expire", "", {
                "leases": [r.name for r in leases],
                "fencing_tokens": [r.last_token for r in leases]})
