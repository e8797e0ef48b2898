"""memory_stats for one namespace: exact counts on namespace-led indexes,
storage apportioned from catalogue sizes (an estimate), and searches over
the last 24 h counted in this process."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.recent_counts import RecentCounts

from . import repo_hygiene
from .rows_documents import Counts, TableSize


@dataclass(frozen=True)
class Stats:
    counts: Counts
    storage_bytes: int
    searches_24h: int


def apportioned_bytes(sizes: Sequence[TableSize],
                      rows: dict[str, int]) -> int:
    """Each table's bytes times this namespace's share of its rows; the
    planner's row estimate is the denominator (no count of other tenants)."""
    total = 0.0
    for t in sizes:
        mine = rows.get(t.name, 0)
        if mine:
            total += t.bytes * min(1.0, mine / max(int(t.rows), mine))
    return int(total)


class MemoryStats:
    def __init__(self, pool: asyncpg.Pool, searches: RecentCounts) -> None:
        self.pool = pool
        self.searches = searches

    async def of(self, ctx: CallerContext) -> Stats:
        namespace = ctx.require_namespace()
        async with tenant_tx(self.pool, namespace) as conn:
            counts = await repo_hygiene.counts(conn)
            sizes = await repo_hygiene.table_sizes(conn)
        rows = {"entries": counts.live + counts.archived + counts.superseded,
                "documents": counts.documents, "document_chunks": counts.chunks}
        return Stats(counts, apportioned_bytes(sizes, rows), self.searches.total(namespace))
