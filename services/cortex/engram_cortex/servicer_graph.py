"""gRPC servicer of CortexGraph: the entity graph and recall (proto <-> domain
only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit.context import current_caller
from engram_kit.recent_counts import RecentCounts
from engram_kit.timestamps import optional_datetime
from engram_kit.vocab import EdgeAction

from .graph import Graph
from .messages import edge_message, fact_message, relation_message, walk_edges
from .recall import Recall
from .vocabulary import Relation
from .walk import bfs_order


@dataclass(frozen=True)
class GraphDeps:
    graph: Graph
    recall: Recall
    recalls: RecentCounts


class GraphServicer(rpc.CortexGraphServicer):
    def __init__(self, deps: GraphDeps) -> None:
        self._d = deps

    async def Relate(self, request: pb.RelateRequest, context: Any) -> pb.RelateResponse:
        action, row = await self._d.graph.relate(
            current_caller(), request.src, request.relation, request.dst, request.provenance,
            request.evidence_quote, optional_datetime(request, "valid_from"))
        return pb.RelateResponse(action=action, edge=edge_message(row))

    async def Unrelate(self, request: pb.RelateRequest, context: Any) -> pb.RelateResponse:
        row = await self._d.graph.unrelate(current_caller(), request.src, request.relation,
                                           request.dst)
        return pb.RelateResponse(action=EdgeAction.RETIRE, edge=edge_message(row))

    async def Neighbors(self, request: pb.NeighborsRequest,
                        context: Any) -> pb.NeighborsResponse:
        walk, path, path_edges = await self._d.graph.neighbors(
            current_caller(), request.entity, request.depth, request.to)
        facts: dict[str, list[pb.Fact]] = {}
        for row in walk.facts:
            facts.setdefault(row.entity, []).append(fact_message(row))
        nodes = [pb.Node(entity=n, depth=walk.depth_of[n], facts=facts.get(n, []))
                 for n in bfs_order(walk.depth_of)]
        return pb.NeighborsResponse(nodes=nodes, edges=walk_edges(walk), path=path,
                                    path_edges=[edge_message(e) for e in path_edges],
                                    truncated=walk.truncated)

    async def Recall(self, request: pb.RecallRequest, context: Any) -> pb.RecallResponse:
        self._d.recalls.add(current_caller().require_namespace())
        found = await self._d.recall.recall(current_caller(), request.query, request.hops,
                                            request.top_k)
        return pb.RecallResponse(
            facts=[fact_message(r, found.facts.conflict_of.get(r.id))
                   for r in found.facts.rows],
            edges=walk_edges(found.walk), seeds=found.seeds,
            visited=bfs_order(found.walk.depth_of), low_confidence=found.low_confidence,
            truncated=found.walk.truncated)

    async def ListRelations(self, request: pb.ListRelationsRequest,
                            context: Any) -> pb.ListRelationsResponse:
        rels = await self._d.graph.relations(current_caller())
        return pb.ListRelationsResponse(relations=[relation_message(r) for r in rels])

    async def AddRelation(self, request: pb.AddRelationRequest,
                          context: Any) -> pb.ListRelationsResponse:
        r = request.relation
        rels = await self._d.graph.add_relation(
            current_caller(), Relation(r.name.strip().lower(), r.inverse.strip().lower(),
                                       r.transitive, r.symmetric))
        return pb.ListRelationsResponse(relations=[relation_message(x) for x in rels])
