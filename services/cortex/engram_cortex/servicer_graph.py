"""gRPC handlers for the graph and recall (proto <-> domain only)."""

from __future__ import annotations

from typing import Any

import asyncpg

from engram.v1 import cortex_pb2 as pb
from engram_kit.context import current_caller
from engram_kit.timestamps import optional_datetime, to_timestamp

from .graph import Graph
from .recall import Recall
from .vocabulary import Relation
from .walk import DerivedEdge, Walk, bfs_order


def edge_message(e: asyncpg.Record) -> pb.Edge:
    return pb.Edge(
        id=str(e["id"]), src=e["src"], relation=e["relation"], dst=e["dst"],
        provenance=e["provenance"], evidence_quote=e["evidence_quote"],
        valid_from=to_timestamp(e["valid_from"]), valid_to=to_timestamp(e["valid_to"]),
        recorded_at=to_timestamp(e["recorded_at"]), retired_at=to_timestamp(e["retired_at"]))


def derived_message(d: DerivedEdge) -> pb.Edge:
    return pb.Edge(src=d.src, relation=d.relation, dst=d.dst, derived=True,
                   provenance=f"derived ({d.via})")


def walk_edges(walk: Walk) -> list[pb.Edge]:
    return [edge_message(e) for e in walk.edges] + [derived_message(d) for d in walk.derived]


def relation_message(r: Relation) -> pb.Relation:
    return pb.Relation(name=r.name, inverse=r.inverse, transitive=r.transitive,
                       symmetric=r.symmetric)


class GraphHandlers:
    """Mixed into the cortex servicer; `fact_message` is passed in to keep
    one serving path for facts."""

    def __init__(self, graph: Graph, recall: Recall, fact_message: Any) -> None:
        self._graph = graph
        self._recall = recall
        self._fact = fact_message

    async def Relate(self, request: pb.RelateRequest, context: Any) -> pb.RelateResponse:
        action, row = await self._graph.relate(
            current_caller(), request.src, request.relation, request.dst, request.provenance,
            request.evidence_quote, optional_datetime(request, "valid_from"))
        return pb.RelateResponse(action=action, edge=edge_message(row))

    async def Unrelate(self, request: pb.RelateRequest, context: Any) -> pb.RelateResponse:
        row = await self._graph.unrelate(current_caller(), request.src, request.relation,
                                         request.dst)
        return pb.RelateResponse(action="retire", edge=edge_message(row))

    async def Neighbors(self, request: pb.NeighborsRequest,
                        context: Any) -> pb.NeighborsResponse:
        walk, path, path_edges = await self._graph.neighbors(
            current_caller(), request.entity, request.depth, request.to)
        facts: dict[str, list[pb.Fact]] = {}
        for row in walk.facts:
            facts.setdefault(row["entity"], []).append(self._fact(row))
        nodes = [pb.Node(entity=n, depth=walk.depth_of[n], facts=facts.get(n, []))
                 for n in bfs_order(walk.depth_of)]
        return pb.NeighborsResponse(nodes=nodes, edges=walk_edges(walk), path=path,
                                    path_edges=[edge_message(e) for e in path_edges],
                                    truncated=walk.truncated)

    async def Recall(self, request: pb.RecallRequest, context: Any) -> pb.RecallResponse:
        found = await self._recall.recall(current_caller(), request.query, request.hops,
                                          request.top_k)
        return pb.RecallResponse(
            facts=[self._fact(r, found.facts.conflict_of.get(r["id"])) for r in found.facts.rows],
            edges=walk_edges(found.walk), seeds=found.seeds,
            visited=bfs_order(found.walk.depth_of), low_confidence=found.low_confidence,
            truncated=found.walk.truncated)

    async def ListRelations(self, request: Any, context: Any) -> pb.ListRelationsResponse:
        rels = await self._graph.relations(current_caller())
        return pb.ListRelationsResponse(relations=[relation_message(r) for r in rels])

    async def AddRelation(self, request: pb.AddRelationRequest,
                          context: Any) -> pb.ListRelationsResponse:
        r = request.relation
        rels = await self._graph.add_relation(
            current_caller(), Relation(r.name.strip().lower(), r.inverse.strip().lower(),
                                       r.transitive, r.symmetric))
        return pb.ListRelationsResponse(relations=[relation_message(x) for x in rels])
