"""memory_recall's fact side: seed entities from the query (named entities
and the entities of matching facts), walk the graph a few hops, serve the
live facts found on the way with the edges that led there."""

from __future__ import annotations

import re
from dataclasses import dataclass

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument

from . import repo_graph
from .graph import Graph
from .reads import FactReader, Served, serve
from .rows import score_of
from .walk import Walk

STRONG_SCORE = 0.5  # a dense match at least this close counts as a confident seed


@dataclass(frozen=True)
class Recalled:
    facts: Served
    walk: Walk
    seeds: list[str]
    low_confidence: bool


def names_in(query: str) -> list[str]:
    """Words and adjacent word pairs, as entity names ('billing api' ->
    'billing-api')."""
    words = re.findall(r"[a-z0-9][a-z0-9._/-]*", query.lower())
    return list(dict.fromkeys(words + [f"{a}-{b}" for a, b in zip(words, words[1:],
                                                                    strict=False)]))


class Recall:
    def __init__(self, pool: asyncpg.Pool, reader: FactReader, graph: Graph,
                 max_seeds: int) -> None:
        self._pool = pool
        self._reader = reader
        self._graph = graph
        self._max_seeds = max_seeds

    async def recall(self, ctx: CallerContext, query: str, hops: int, top_k: int) -> Recalled:
        ns = ctx.require_namespace()
        if not 0 <= hops <= 3:
            raise InvalidArgument("hops is 0-3", field="hops")
        top_k = top_k or 5
        found = await self._reader.search(ctx, query, top_k)
        async with tenant_tx(self._pool, ns) as conn:
            named = await repo_graph.entities_named(conn, names_in(query),
                                                   self._max_seeds + 1)
            # Named entities first: the query says them outright.
            seeds = list(dict.fromkeys(named + [r.entity for r in found.rows]))
            capped = len(seeds) > self._max_seeds
            seeds = seeds[:self._max_seeds]
            walk = await self._graph.walk(conn, seeds, hops)
            walk.truncated |= capped
            rows = list(found.rows)
            have = {r.id for r in rows}
            by_depth = sorted(walk.facts, key=lambda r: walk.depth_of.get(r.entity, 9))
            rows += [r for r in by_depth if r.id not in have][: top_k * 3]
            served = await serve(conn, rows)
        strong = any(score_of(r) >= STRONG_SCORE for r in found.rows)
        return Recalled(served, walk, seeds, low_confidence=not named and not strong)
