"""MCP tools for the graph and multi-hop recall."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import cortex_pb2 as pb
from engram.v1 import memory_pb2
from engram_kit.timestamps import to_timestamp

from .auth import caller_for
from .clients import Backends
from .errors import tool_errors
from .shaping import iso_time, parse_time, search_reply
from .shaping_facts import fact_item
from .tools import Namespace, session_id

WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True)
Relation = Annotated[str, Field(description="From the vocabulary, e.g. depends_on, owned_by, "
                                "part_of, uses (or an inverse such as owns); relation_list "
                                "shows all.")]


def edge_item(e: pb.Edge) -> dict[str, Any]:
    item: dict[str, Any] = {"src": e.src, "relation": e.relation, "dst": e.dst,
                            "provenance": e.provenance}
    if e.derived:
        item["derived"] = True
    else:
        item |= {"id": e.id, "evidence_quote": e.evidence_quote or None}
        if e.HasField("retired_at"):
            item["retired_at"] = iso_time(e, "retired_at")
    return item


def neighbors_reply(r: pb.NeighborsResponse) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "nodes": [{"entity": n.entity, "depth": n.depth,
                   "facts": [fact_item(f) for f in n.facts]} for n in r.nodes],
        "edges": [edge_item(e) for e in r.edges], "truncated": r.truncated}
    if r.path:
        reply["path"] = list(r.path)
        reply["path_edges"] = [edge_item(e) for e in r.path_edges]
    return reply


def register_graph_tools(mcp: MCPServer, backends: Backends) -> None:
    async def call(tool: str, method: str, ctx: Context, namespace: str | None,
                   request: Any) -> Any:
        caller = caller_for(namespace, session_id(ctx), tool)
        with tool_errors(tool, caller.request_id):
            return await backends.cortex(method, caller, request)

    @mcp.tool(annotations=WRITE)
    async def graph_relate(
        src: str, relation: Relation, dst: str, ctx: Context,
        provenance: Literal["asserted", "extracted", "inferred"] = "asserted",
        evidence_quote: str = "", valid_from: str | None = None, namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Record a typed edge between two entities (e.g. billing-api depends_on
        postgres). Returns {action: insert|confirm, edge}."""
        r = await call("graph_relate", "Relate", ctx, namespace, pb.RelateRequest(
            src=src, relation=relation, dst=dst, provenance=provenance,
            evidence_quote=evidence_quote,
            valid_from=to_timestamp(parse_time(valid_from, "valid_from"))))
        return {"action": r.action, "edge": edge_item(r.edge)}

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                          idempotent_hint=False))
    async def graph_unrelate(src: str, relation: Relation, dst: str, ctx: Context,
                             namespace: Namespace = None) -> dict[str, Any]:
        """Retire an edge; it stays as history. Returns {action: retire, edge}."""
        r = await call("graph_unrelate", "Unrelate", ctx, namespace,
                       pb.RelateRequest(src=src, relation=relation, dst=dst))
        return {"action": r.action, "edge": edge_item(r.edge)}

    @mcp.tool(annotations=READ)
    async def graph_neighbors(
        entity: str, ctx: Context,
        depth: Annotated[int, Field(ge=1, le=3)] = 1,
        to: Annotated[str, Field(description="Also find the shortest path to this.")] = "",
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Entities within `depth` hops, each with its current facts, and the edges
        between them (inverse and transitive consequences marked derived). Returns
        {nodes, edges, path?, truncated}."""
        return neighbors_reply(await call("graph_neighbors", "Neighbors", ctx, namespace,
                                          pb.NeighborsRequest(entity=entity, depth=depth,
                                                              to=to)))

    @mcp.tool(annotations=READ)
    async def relation_list(ctx: Context, namespace: Namespace = None) -> dict[str, Any]:
        """The relation vocabulary: names, inverses, transitive/symmetric flags."""
        r = await call("relation_list", "ListRelations", ctx, namespace,
                       pb.ListRelationsRequest())
        return {"relations": [{"name": x.name, "inverse": x.inverse,
                               "transitive": x.transitive, "symmetric": x.symmetric}
                              for x in r.relations]}

    @mcp.tool(annotations=WRITE)
    async def relation_add(name: str, inverse: str, ctx: Context, transitive: bool = False,
                           symmetric: bool = False, namespace: Namespace = None
                           ) -> dict[str, Any]:
        """Reviewer only: extend the relation vocabulary of this namespace."""
        r = await call("relation_add", "AddRelation", ctx, namespace, pb.AddRelationRequest(
            relation=pb.Relation(name=name, inverse=inverse, transitive=transitive,
                                 symmetric=symmetric)))
        return {"relations": [x.name for x in r.relations]}

    @mcp.tool(annotations=READ)
    async def memory_recall(
        query: str, ctx: Context,
        hops: Annotated[int, Field(ge=0, le=3, description="Graph hops from the seeds.")] = 1,
        top_k: Annotated[int, Field(ge=1, le=20)] = 5,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Multi-hop recall: seeds entities from the query (named entities and matching
        facts), walks the graph `hops` steps, and returns the current facts met on the
        way, the edges that connect them and supporting memory entries. `low_confidence`
        is true when nothing strong matched. Returns {facts, edges, entries, seeds,
        visited, low_confidence}."""
        caller = caller_for(namespace, session_id(ctx), "memory_recall")
        with tool_errors("memory_recall", caller.request_id):
            recalled, found = await asyncio.gather(
                backends.cortex("Recall", caller, pb.RecallRequest(query=query, hops=hops,
                                                                   top_k=top_k)),
                backends.memory("Search", caller, memory_pb2.SearchRequest(query=query,
                                                                           top_k=top_k)))
        entries = search_reply(found, verbose=False, explain=False, facts=[])["entries"]
        return {"facts": [fact_item(f) for f in recalled.facts],
                "edges": [edge_item(e) for e in recalled.edges], "entries": entries,
                "seeds": list(recalled.seeds), "visited": list(recalled.visited),
                "low_confidence": recalled.low_confidence,
                "truncated": recalled.truncated}
