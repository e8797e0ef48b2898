"""Walking the graph: breadth-first over live edges in both directions,
bounded per call.

Every walk is capped in entities, stored edges, derived edges and time (the
sooner of the setting and the caller's gRPC deadline); hitting any cap ends
the walk early with `truncated` set. Work is linear in the edges read: sets
for membership, the transitive closure from an index built once."""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field

import asyncpg

from engram_kit.context import time_left

from . import repo_graph
from .rows import EdgeRow, FactRow
from .settings import CortexSettings
from .vocabulary import Vocabulary

FACTS_PER_NODE = 5


@dataclass(frozen=True)
class DerivedEdge:
    src: str
    relation: str
    dst: str
    via: str            # "inverse" or "transitive"


@dataclass
class Walk:
    depth_of: dict[str, int]
    edges: list[EdgeRow]
    derived: list[DerivedEdge] = field(default_factory=list)
    parent: dict[str, tuple[str, EdgeRow]] = field(default_factory=dict)
    truncated: bool = False
    facts: list[FactRow] = field(default_factory=list)


@dataclass(frozen=True)
class WalkLimits:
    fan_out: int            # edges read per walked entity
    max_nodes: int
    max_edges: int          # stored edges per walk
    max_derived: int        # inverse and transitive edges per walk
    timeout_s: float

    @classmethod
    def of(cls, s: CortexSettings) -> WalkLimits:
        return cls(s.graph_fan_out, s.graph_max_nodes, s.graph_max_edges,
                   s.graph_max_derived, s.graph_walk_timeout_s)


async def walk(conn: asyncpg.Connection, seeds: list[str], depth: int,
               limits: WalkLimits) -> Walk:
    deadline = time.monotonic() + time_left(limits.timeout_s)
    result = Walk({s: 0 for s in seeds}, [])
    seen: set[uuid.UUID] = set()
    frontier = dict.fromkeys(seeds)  # ordered, with O(1) membership
    for level in range(1, depth + 1):
        room = limits.max_edges - len(result.edges)
        if not frontier or room <= 0 or time.monotonic() >= deadline:
            result.truncated |= bool(frontier)
            break
        want = min(limits.fan_out * len(frontier), room)
        rows = await repo_graph.edges_touching(conn, list(frontier), list(seen), want)
        result.truncated |= len(rows) >= want
        frontier = step(result, rows, frontier, level, seen, limits.max_nodes)
    derived, cut = derive(result.edges, await Vocabulary.load(conn), limits.max_derived)
    result.derived = derived
    result.truncated |= cut
    result.facts = await repo_graph.facts_of(conn, list(result.depth_of), FACTS_PER_NODE)
    return result


def step(result: Walk, rows: list[EdgeRow], frontier: dict[str, None], level: int,
         seen: set[uuid.UUID], max_nodes: int) -> dict[str, None]:
    """Take one level's edges; returns the next frontier."""
    nxt: dict[str, None] = {}
    for e in rows:
        if e.id in seen:
            continue
        seen.add(e.id)
        result.edges.append(e)
        for here, there in ((e.src, e.dst), (e.dst, e.src)):
            if here in frontier and there not in result.depth_of:
                if len(result.depth_of) >= max_nodes:
                    result.truncated = True
                    continue
                result.depth_of[there] = level
                result.parent[there] = (here, e)
                nxt[there] = None
    return nxt


def derive(edges: list[EdgeRow], vocab: Vocabulary,
           limit: int) -> tuple[list[DerivedEdge], bool]:
    """Inverse views of stored edges and one-step transitive closures, at
    most `limit`; the flag says some were left out."""
    out: list[DerivedEdge] = []
    stored = {(e.src, e.relation, e.dst) for e in edges}
    onward: dict[tuple[str, str], list[str]] = defaultdict(list)
    for e in edges:
        onward[(e.relation, e.src)].append(e.dst)
    for e in edges:
        rel = vocab.by_name.get(e.relation)
        if rel is None:
            continue
        if not rel.symmetric:
            if len(out) >= limit:
                return out, True
            out.append(DerivedEdge(e.dst, rel.inverse, e.src, "inverse"))
        if not rel.transitive:
            continue
        for far in onward.get((rel.name, e.dst), ()):
            key = (e.src, rel.name, far)
            if far == e.src or key in stored:
                continue
            if len(out) >= limit:
                return out, True
            stored.add(key)
            out.append(DerivedEdge(e.src, rel.name, far, "transitive"))
    return out, False


def bfs_order(depth_of: dict[str, int]) -> list[str]:
    return [n for n, _ in sorted(depth_of.items(), key=lambda kv: (kv[1], kv[0]))]
