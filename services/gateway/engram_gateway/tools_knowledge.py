"""MCP tools for world facts, outcomes and lessons, tags and the review queue."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import cortex_pb2 as pb
from engram.v1 import dreamer_pb2

from .auth import caller_for
from .clients import Backends
from .errors import tool_errors
from .shaping import iso_time
from .shaping_facts import conflict_item
from .tools import Namespace, RequestId, session_id

WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True)
# The dreamer's proposal kinds; the other review items are the cortex's.
PROPOSAL_KINDS = ("graph_link", "merge_entity", "merge_fact")
TopK = Annotated[int, Field(ge=1, le=50)]


def world_item(f: pb.WorldFact) -> dict[str, Any]:
    return {"id": f.id, "entity": f.entity, "attribute": f.attribute, "value": f.value,
            "citation": {"url": f.source_url, "quote": f.source_quote},
            "freshness": f.freshness, "confidence": round(f.confidence, 3),
            "effective_confidence": round(f.effective_confidence, 3), "stale": f.stale,
            "checked_at": iso_time(f, "checked_at")}


def lesson_item(x: pb.Lesson) -> dict[str, Any]:
    item = {"id": x.id, "polarity": x.polarity, "text": x.text, "task": x.task,
            "confidence": round(x.confidence, 3), "signals": x.signals,
            "subject_fact_ids": list(x.subject_fact_ids), "distilled_by": x.distilled_by}
    if x.re_verify:
        item["re_verify"] = "a fact this lesson rests on changed since: check it still holds"
    return item


def register_knowledge_tools(mcp: MCPServer, backends: Backends) -> None:
    async def call(tool: str, method: str, ctx: Context, namespace: str | None,
                   request: Any, request_id: str = "") -> Any:
        caller = caller_for(namespace, session_id(ctx), tool, request_id)
        with tool_errors(tool, caller.request_id):
            return await backends.cortex(method, caller, request)

    @mcp.tool(annotations=WRITE)
    async def world_set(
        entity: str, attribute: str, value: str,
        source_url: Annotated[str, Field(description="http(s) URL of the source.")],
        source_quote: Annotated[str, Field(description="The source's words, verbatim.")],
        ctx: Context,
        freshness: Annotated[Literal["volatile", "seasonal", "stable"], Field(
            description="How fast it goes stale: half-life 7 / 90 / 730 days.")] = "seasonal",
        confidence: Annotated[float, Field(gt=0, le=1)] = 1.0,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Record an external fact (a library's latest version, an API limit) with its
        citation. Returns {action: insert|confirm|supersede, fact}."""
        r = await call("world_set", "WorldSet", ctx, namespace, pb.WorldSetRequest(
            entity=entity, attribute=attribute, value=value, source_url=source_url,
            source_quote=source_quote, freshness=freshness, confidence=confidence))
        return {"action": r.action, "fact": world_item(r.fact)}

    @mcp.tool(annotations=READ)
    async def world_search(query: str, ctx: Context, top_k: TopK = 5,
                           namespace: Namespace = None) -> dict[str, Any]:
        """Cited external facts matching the query, each with effective_confidence
        (decayed since last checked), a stale flag and its citation."""
        r = await call("world_search", "WorldSearch", ctx, namespace,
                       pb.TextSearchRequest(query=query, top_k=top_k))
        return {"facts": [world_item(f) for f in r.facts]}

    @mcp.tool(annotations=WRITE)
    async def outcome_record(
        task: Annotated[str, Field(description="What was attempted (1-500 chars).")],
        outcome: Literal["success", "failure", "correction"], ctx: Context,
        detail: Annotated[str, Field(description="What worked, failed, or what the user "
                                     "said to do instead.")] = "",
        used_ids: Annotated[list[str] | None, Field(description="Fact ids relied on.")]
        = None,
        namespace: Namespace = None,
        request_id: RequestId = "",
    ) -> dict[str, Any]:
        """Record how a task went. Repeated identical signals (or one correction) distil
        a do/avoid lesson. Returns {outcome_id, identical_signals, lesson?}."""
        r = await call("outcome_record", "RecordOutcome", ctx, namespace, pb.OutcomeRequest(
            task=task, outcome=outcome, detail=detail, used_ids=used_ids or []), request_id)
        reply: dict[str, Any] = {"outcome_id": r.outcome_id,
                                 "identical_signals": r.identical_signals}
        if r.HasField("lesson"):
            reply["lesson"] = lesson_item(r.lesson)
        return reply

    @mcp.tool(annotations=READ)
    async def lesson_search(query: str, ctx: Context, top_k: TopK = 5,
                            namespace: Namespace = None) -> dict[str, Any]:
        """Do/avoid lessons learned from recorded outcomes, relevant to the query. A lesson
        whose facts changed since carries re_verify."""
        r = await call("lesson_search", "LessonSearch", ctx, namespace,
                       pb.TextSearchRequest(query=query, top_k=top_k))
        return {"lessons": [lesson_item(x) for x in r.lessons]}

    @mcp.tool(annotations=WRITE)
    async def tag_propose_root(tag: str, reason: str, ctx: Context,
                               namespace: Namespace = None) -> dict[str, Any]:
        """Propose a new root tag (no dots); a reviewer approves or rejects it. Leaves
        under an approved root are minted on use (e.g. lang.python)."""
        r = await call("tag_propose_root", "ProposeRootTag", ctx, namespace,
                       pb.TagRequest(tag=tag, reason=reason))
        return {"tag": r.tag, "status": r.status, "note": r.note}

    @mcp.tool(annotations=WRITE)
    async def tag_alias(alias: str, tag: str, ctx: Context,
                        namespace: Namespace = None) -> dict[str, Any]:
        """Map a spelling to an approved tag (e.g. py -> lang.python)."""
        r = await call("tag_alias", "AddTagAlias", ctx, namespace,
                       pb.TagRequest(tag=tag, alias=alias))
        return {"tag": r.tag, "note": r.note}

    @mcp.tool(annotations=READ)
    async def review_list(ctx: Context,
                          kind: Literal["", "conflict", "root_tag", "graph_link",
                                        "merge_entity", "merge_fact"] = "",
                          namespace: Namespace = None) -> dict[str, Any]:
        """What waits for a person: open conflicts, proposed root tags and the dreamer's
        proposals (graph links, entity and fact merges), each with the review_decide call
        that settles it."""
        caller = caller_for(namespace, session_id(ctx), "review_list")
        with tool_errors("review_list", caller.request_id):
            items: list[dict[str, Any]] = []
            if kind not in PROPOSAL_KINDS:
                r = await backends.cortex("ReviewList", caller,
                                          pb.ReviewListRequest(kind=kind))
                for i in r.items:
                    item = {"id": i.id, "kind": i.kind, "summary": i.summary,
                            "decide_call": i.decide_call}
                    if i.HasField("conflict"):
                        item["conflict"] = conflict_item(i.conflict)
                    items.append(item)
            if kind in ("", *PROPOSAL_KINDS):
                p = await backends.dreamer("ListProposals", caller,
                                           dreamer_pb2.ListProposalsRequest(kind=kind))
                items += [{"id": f"proposal:{x.id}", "kind": x.kind, "summary": x.summary,
                           "evidence_quote": x.evidence_quote, "run_id": x.run_id,
                           "decide_call": f"review_decide(item_id='proposal:{x.id}', "
                                          "decision='approve' or 'reject', reasoning='...')"}
                          for x in p.proposals]
            return {"items": items}

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                          idempotent_hint=False))
    async def review_decide(
        item_id: str, decision: Literal["approve", "reject", "winner", "both_stand"],
        reasoning: str, ctx: Context, winner_id: str = "", namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Reviewer only: approve/reject a root tag or a dreamer proposal (an approved
        graph link is written as an inferred edge, an approved merge makes one entity an
        alias of the other and moves its facts, an approved fact merge retracts the
        duplicate; a rejected proposal is never proposed again), or settle a conflict
        (winner with winner_id, or both_stand). Returns
        {item_id, kind, status}."""
        caller = caller_for(namespace, session_id(ctx), "review_decide")
        with tool_errors("review_decide", caller.request_id):
            if item_id.startswith("proposal:"):
                r = await backends.dreamer("DecideProposal", caller,
                                           dreamer_pb2.DecideProposalRequest(
                                               proposal_id=item_id.removeprefix("proposal:"),
                                               decision=decision, reasoning=reasoning))
                return {"item_id": item_id, "kind": r.proposal.kind,
                        "status": r.proposal.status}
            r = await backends.cortex("ReviewDecide", caller, pb.ReviewDecideRequest(
                item_id=item_id, decision=decision, winner_id=winner_id, reasoning=reasoning))
            return {"item_id": r.item_id, "kind": r.kind, "status": r.status}
