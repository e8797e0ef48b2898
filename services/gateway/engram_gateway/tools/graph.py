"""Registry entries for the graph and multi-hop recall."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from pydantic import Field

from engram.v1 import cortex_pb2 as pb
from engram.v1 import memory_pb2
from engram_kit.timestamps import to_timestamp

from ..rpcs import CORTEX, MEMORY
from ..shaping.common import parse_time, search_reply
from ..shaping.facts import fact_item
from ..shaping.knowledge import edge_item, neighbors_reply
from .argtypes import RELATION_PATTERN, EntityName, IsoTime, QueryText, plain_arg
from .spec import Access, Effect, Invocation, Namespace, Retry, Tier, ToolSpec, op, read

Relation = Annotated[str, Field(max_length=40, pattern=RELATION_PATTERN,
                                description="From the vocabulary, e.g. depends_on, owned_by, "
                                "part_of, uses (or an inverse such as owns); relation_list "
                                "shows all.")]


def graph_relate(
    src: EntityName, relation: Relation, dst: EntityName,
    provenance: Literal["asserted", "extracted", "inferred"] = "asserted",
    evidence_quote: Annotated[str, plain_arg(4000, "Verbatim words it comes from.")] = "",
    valid_from: IsoTime | None = None, namespace: Namespace = None,
) -> None:
    """Record a typed edge between two entities (e.g. billing-api depends_on
    postgres). Returns {action: insert|confirm, edge}."""


def graph_unrelate(src: EntityName, relation: Relation, dst: EntityName,
                   namespace: Namespace = None) -> None:
    """Retire an edge; it stays as history. Returns {action: retire, edge}."""


def graph_neighbors(
    entity: EntityName,
    depth: Annotated[int, Field(ge=1, le=3)] = 1,
    to: Annotated[str, plain_arg(200, "Also find the shortest path to this.")] = "",
    namespace: Namespace = None,
) -> None:
    """Entities within `depth` hops, each with its current facts, and the edges
    between them (inverse and transitive consequences marked derived). Returns
    {nodes, edges, path?, truncated}."""


def relation_list(namespace: Namespace = None) -> None:
    """The relation vocabulary: names, inverses, transitive/symmetric flags."""


def relation_add(name: str, inverse: str, transitive: bool = False,
                 symmetric: bool = False, namespace: Namespace = None) -> None:
    """Reviewer only: extend the relation vocabulary of this namespace."""


def memory_recall(
    query: QueryText,
    hops: Annotated[int, Field(ge=0, le=3, description="Graph hops from the seeds.")] = 1,
    top_k: Annotated[int, Field(ge=1, le=20)] = 5,
    namespace: Namespace = None,
) -> None:
    """Multi-hop recall: seeds entities from the query (named entities and matching
    facts), walks the graph `hops` steps, and returns the current facts met on the
    way, the edges that connect them and supporting memory entries. `low_confidence`
    is true when nothing strong matched. Returns {facts, edges, entries, seeds,
    visited, low_confidence}."""


async def run_recall(inv: Invocation) -> dict[str, Any]:
    """The cortex's walk beside a plain memory search for the same words."""
    a = inv.args
    recalled, found = await asyncio.gather(
        inv.calls.call(CORTEX.Recall, inv.caller, pb.RecallRequest(
            query=a["query"], hops=a["hops"], top_k=a["top_k"])),
        inv.calls.call(MEMORY.Search, inv.caller, memory_pb2.SearchRequest(
            query=a["query"], top_k=a["top_k"])))
    entries = search_reply(found, verbose=False, explain=False, facts=[])["entries"]
    return {"facts": [fact_item(f) for f in recalled.facts],
            "edges": [edge_item(e) for e in recalled.edges], "entries": entries,
            "seeds": list(recalled.seeds), "visited": list(recalled.visited),
            "low_confidence": recalled.low_confidence, "truncated": recalled.truncated}


def edge_reply(r: pb.RelateResponse) -> dict[str, Any]:
    return {"action": r.action, "edge": edge_item(r.edge)}


C = CORTEX
EDGE = {"src": "registry-a", "relation": "depends_on", "dst": "registry-b"}

TOOLS = [
    ToolSpec(graph_relate, Tier.FULL, {"": op(
        Access.WRITE, Effect.ADDITIVE, Retry.SAFE, "a repeat confirms the edge",
        rpc=C.Relate, shape=edge_reply, rest="POST /v1/graph/edges",
        build=lambda a: pb.RelateRequest(
            src=a["src"], relation=a["relation"], dst=a["dst"], provenance=a["provenance"],
            evidence_quote=a["evidence_quote"],
            valid_from=to_timestamp(parse_time(a["valid_from"], "valid_from"))))},
        example=EDGE),
    ToolSpec(graph_unrelate, Tier.FULL, {"": op(
        Access.WRITE, Effect.DESTRUCTIVE, Retry.SAFE, "a repeat finds no live edge",
        rpc=C.Unrelate, shape=edge_reply, rest="DELETE /v1/graph/edges",
        build=lambda a: pb.RelateRequest(src=a["src"], relation=a["relation"],
                                         dst=a["dst"]))}, example=EDGE),
    ToolSpec(graph_neighbors, Tier.FULL, {"": read(
        C.Neighbors, shape=neighbors_reply, rest="GET /v1/graph/neighbors",
        build=lambda a: pb.NeighborsRequest(entity=a["entity"], depth=a["depth"],
                                            to=a["to"]))}, example={"entity": "registry-a"}),
    ToolSpec(relation_list, Tier.FULL, {"": read(
        C.ListRelations, build=lambda a: pb.ListRelationsRequest(),
        shape=lambda r: {"relations": [{"name": x.name, "inverse": x.inverse,
                                        "transitive": x.transitive, "symmetric": x.symmetric}
                                       for x in r.relations]})}),
    ToolSpec(relation_add, Tier.FULL, {"": op(
        Access.REVIEWER, Effect.ADDITIVE, Retry.SAFE, "a repeat is refused: already there",
        rpc=C.AddRelation,
        build=lambda a: pb.AddRelationRequest(relation=pb.Relation(
            name=a["name"], inverse=a["inverse"], transitive=a["transitive"],
            symmetric=a["symmetric"])),
        shape=lambda r: {"relations": [x.name for x in r.relations]})},
        example={"name": "registry_rel", "inverse": "registry_rel_of"}),
    ToolSpec(memory_recall, Tier.CORE, {"": read(run=run_recall, rest="GET /v1/recall")},
             example={"query": "x"}),
]
