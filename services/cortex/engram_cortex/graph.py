"""The graph: typed edges between entities, walked for neighbours and recall.

Walks read `live_edges` and `live_facts` only, so a retired edge or a
superseded fact never shows up as current on a graph path. Inverse edges and
transitive consequences are computed on read and marked `derived`."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from engram_kit.vocab import REVIEWER_ROLES, EdgeAction, Role

from . import repo, repo_graph
from .normalise import entity_name
from .rows import EdgeRow
from .vocabulary import NAME_RE, Relation, Vocabulary
from .walk import Walk, WalkLimits, walk

PROVENANCE = ("asserted", "extracted", "inferred")


class Graph:
    def __init__(self, pool: asyncpg.Pool, limits: WalkLimits) -> None:
        self._pool = pool
        self.limits = limits

    async def _entity(self, conn: asyncpg.Connection, raw: str, name: str) -> str:
        return await repo.resolve_entity(conn, entity_name(raw, name))

    async def relate(self, ctx: CallerContext, src: str, relation: str, dst: str,
                     provenance: str, quote: str,
                     valid_from: datetime | None) -> tuple[str, EdgeRow]:
        ns = ctx.require_namespace()
        provenance = provenance or "asserted"
        if provenance not in PROVENANCE:
            raise InvalidArgument(f"provenance is one of {', '.join(PROVENANCE)}",
                                  field="provenance")
        if len(quote) > 4000:
            raise InvalidArgument("evidence quote is at most 4000 characters", field="quote")
        async with tenant_tx(self._pool, ns) as conn:
            s, d = await self._entity(conn, src, "src"), await self._entity(conn, dst, "dst")
            if s == d:
                raise InvalidArgument("an edge joins two different entities", field="dst")
            s, rel, d = (await Vocabulary.load(conn)).canonical(relation, s, d)
            existing = await repo_graph.live_edge(conn, s, rel.name, d)
            if existing is not None:
                return EdgeAction.CONFIRM, existing
            for name in (s, d):
                await repo.ensure_entity(conn, ns, name)
            row = await repo_graph.insert_edge(conn, ns, s, rel.name, d, provenance, quote,
                                               ctx.principal, valid_from)
            await repo.audit(conn, ns, ctx.principal, "edge.relate", str(row.id),
                             {"edge": f"{s} {rel.name} {d}", "provenance": provenance})
            return EdgeAction.INSERT, row

    async def unrelate(self, ctx: CallerContext, src: str, relation: str,
                       dst: str) -> EdgeRow:
        ns = ctx.require_namespace()
        async with tenant_tx(self._pool, ns) as conn:
            s, d = await self._entity(conn, src, "src"), await self._entity(conn, dst, "dst")
            s, rel, d = (await Vocabulary.load(conn)).canonical(relation, s, d)
            existing = await repo_graph.live_edge(conn, s, rel.name, d)
            if existing is None:
                raise NotFound(f"no live edge {s} {rel.name} {d}")
            row = await repo_graph.retire_edge(conn, existing.id)
            await repo.audit(conn, ns, ctx.principal, "edge.unrelate", str(row.id),
                             {"edge": f"{s} {rel.name} {d}"})
            return row

    async def walk(self, conn: asyncpg.Connection, seeds: list[str], depth: int) -> Walk:
        return await walk(conn, seeds, depth, self.limits)

    async def neighbors(self, ctx: CallerContext, entity: str, depth: int,
                        to: str) -> tuple[Walk, list[str], list[EdgeRow]]:
        ns = ctx.require_namespace()
        depth = depth or 1
        if not 1 <= depth <= 3:
            raise InvalidArgument("depth is 1-3", field="depth")
        async with tenant_tx(self._pool, ns) as conn:
            start = await self._entity(conn, entity, "entity")
            target = await self._entity(conn, to, "to") if to.strip() else ""
            walk = await self.walk(conn, [start], depth)
        path, path_edges = [], []
        if target and target in walk.depth_of:
            node = target
            while node != start:
                parent, edge = walk.parent[node]
                path.append(node)
                path_edges.append(edge)
                node = parent
            path = [start, *reversed(path)]
            path_edges.reverse()
        return walk, path, path_edges

    async def relations(self, ctx: CallerContext) -> list[Relation]:
        async with tenant_tx(self._pool, ctx.require_namespace()) as conn:
            return (await Vocabulary.load(conn)).all()

    async def add_relation(self, ctx: CallerContext, rel: Relation) -> list[Relation]:
        ns = ctx.require_namespace()
        if ctx.role not in REVIEWER_ROLES:
            raise PermissionDenied("extending the relation vocabulary needs the reviewer "
                                   f"role; you are {ctx.role or Role.AGENT}")
        inverse = rel.name if rel.symmetric else rel.inverse
        for name in {rel.name, inverse}:
            if not NAME_RE.match(name):
                raise InvalidArgument("relation names are 2-40 chars of a-z, 0-9, _",
                                      field="relation")
        async with tenant_tx(self._pool, ns) as conn:
            vocab = await Vocabulary.load(conn)
            if {rel.name, inverse} & (set(vocab.by_name) | set(vocab.inverse_of)):
                raise Conflict(f"{rel.name!r} or {inverse!r} is already in the vocabulary")
            await repo_graph.add_relation(conn, ns, rel.name, inverse, rel.transitive,
                                          rel.symmetric, ctx.principal)
            await repo.audit(conn, ns, ctx.principal, "relation.add", rel.name,
                             {"inverse": inverse, "transitive": rel.transitive})
            return (await Vocabulary.load(conn)).all()

