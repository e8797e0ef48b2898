"""memory_stats' cortex part for one namespace: facts by kind and verdict,
what waits for a reviewer, live lessons (exact counts on namespace-led
indexes), and recalls over the last 24 h counted in this process."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.recent_counts import RecentCounts

from . import repo_stats
from .rows import FactCountRow, StatTotalsRow


@dataclass(frozen=True)
class CortexStats:
    facts: list[FactCountRow]
    totals: StatTotalsRow
    recalls_24h: int


class Stats:
    def __init__(self, pool: asyncpg.Pool, recalls: RecentCounts) -> None:
        self._pool = pool
        self.recalls = recalls

    async def of(self, ctx: CallerContext) -> CortexStats:
        namespace = ctx.require_namespace()
        async with tenant_tx(self._pool, namespace) as conn:
            facts = await repo_stats.facts_by_kind(conn)
            totals = await repo_stats.totals(conn)
        return CortexStats(facts, totals, self.recalls.total(namespace))
