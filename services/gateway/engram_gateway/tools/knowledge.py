"""Registry entries for world facts, outcomes and lessons, tags and the
review queue."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from engram.v1 import cortex_pb2 as pb
from engram.v1 import dreamer_pb2
from engram_kit.errors import InvalidArgument

from ..rpcs import CORTEX, DREAMER
from ..shaping.facts import conflict_item, fact_item
from ..shaping.knowledge import lesson_item, world_item
from .spec import (
    Access,
    Effect,
    Invocation,
    Namespace,
    RequestId,
    Retry,
    Tier,
    ToolSpec,
    op,
    read,
)

# The dreamer's proposal kinds; the other review items are the cortex's.
PROPOSAL_KINDS = ("graph_link", "merge_entity", "merge_fact", "merge_entries")
CORTEX_REVIEW_KINDS = ("conflict", "root_tag", "contender")
REVIEW_PAGE, REVIEW_PAGE_MAX = 100, 100
TopK = Annotated[int, Field(ge=1, le=50)]


def world_set(
    entity: str, attribute: str, value: str,
    source_url: Annotated[str, Field(description="http(s) URL of the source.")],
    source_quote: Annotated[str, Field(description="The source's words, verbatim.")],
    freshness: Annotated[Literal["volatile", "seasonal", "stable"], Field(
        description="How fast it goes stale: half-life 7 / 90 / 730 days.")] = "seasonal",
    confidence: Annotated[float, Field(gt=0, le=1)] = 1.0,
    namespace: Namespace = None,
) -> None:
    """Record an external fact (a library's latest version, an API limit) with its
    citation. Returns {action: insert|confirm|supersede, fact}."""


def world_search(query: str, top_k: TopK = 5, namespace: Namespace = None) -> None:
    """Cited external facts matching the query, each with effective_confidence
    (decayed since last checked), a stale flag and its citation."""


def outcome_record(
    task: Annotated[str, Field(description="What was attempted (1-500 chars).")],
    outcome: Literal["success", "failure", "correction"],
    detail: Annotated[str, Field(description="What worked, failed, or what the user "
                                 "said to do instead.")] = "",
    used_ids: Annotated[list[str] | None, Field(description="Fact ids relied on.")] = None,
    namespace: Namespace = None,
    request_id: RequestId = "",
) -> None:
    """Record how a task went. Repeated identical signals (or one correction) distil
    a do/avoid lesson. Returns {outcome_id, identical_signals, lesson?}."""


def outcome_reply(r: pb.OutcomeResponse) -> dict[str, Any]:
    reply: dict[str, Any] = {"outcome_id": r.outcome_id, "identical_signals": r.identical_signals}
    if r.HasField("lesson"):
        reply["lesson"] = lesson_item(r.lesson)
    return reply


def lesson_search(query: str, top_k: TopK = 5, namespace: Namespace = None) -> None:
    """Do/avoid lessons learned from recorded outcomes, relevant to the query. A lesson
    whose facts changed since carries re_verify."""


def tag_propose_root(tag: str, reason: str, namespace: Namespace = None) -> None:
    """Propose a new root tag (no dots); a reviewer approves or rejects it. Leaves
    under an approved root are minted on use (e.g. lang.python)."""


def tag_alias(alias: str, tag: str, namespace: Namespace = None) -> None:
    """Map a spelling to an approved tag (e.g. py -> lang.python)."""


def review_list(kind: Literal["", "conflict", "root_tag", "contender", "graph_link",
                              "merge_entity", "merge_fact", "merge_entries"] = "",
                cursor: Annotated[str, Field(max_length=300, description=(
                    "next_cursor of the previous page; empty: the first page."))] = "",
                limit: Annotated[int, Field(ge=0, le=REVIEW_PAGE_MAX, description=(
                    f"Page size, 1-{REVIEW_PAGE_MAX}; 0: {REVIEW_PAGE}."))] = 0,
                q: Annotated[str, Field(max_length=200, description=(
                    "Case-insensitive text match on the entity, slot, value, tag or "
                    "proposal summary."))] = "",
                namespace: Namespace = None) -> None:
    """What waits for a person: open conflicts, proposed root tags, parked contenders
    and the dreamer's proposals (graph links, entity, fact and memory entry merges),
    each with the call that settles it (review_decide; contender_decide for a
    contender). Oldest first, one page at a time: pass next_cursor back as cursor
    for the next page (empty on the last); total counts every open item matching
    kind and q. Returns {items, next_cursor, total}."""


def _review_cursor(cursor: str, kind: str) -> tuple[str, str]:
    """(phase, position): the cortex's items come first ('c'), then the dreamer's
    proposals by offset ('p')."""
    if not cursor:
        return ("p", "0") if kind in PROPOSAL_KINDS else ("c", "")
    phase, pos = cursor[:1], cursor[1:]
    if (phase == "c" and pos and kind not in PROPOSAL_KINDS) or (
            phase == "p" and pos.isdigit() and kind not in CORTEX_REVIEW_KINDS):
        return phase, pos
    raise InvalidArgument("cursor is not a next_cursor this list gave out for this kind; "
                          "start again without one", field="cursor")


async def run_review_list(inv: Invocation) -> dict[str, Any]:
    """The cortex's review items, then the dreamer's proposals."""
    kind, q = inv.args["kind"], inv.args["q"]
    size = inv.args["limit"] or REVIEW_PAGE
    phase, pos = _review_cursor(inv.args["cursor"], kind)
    items: list[dict[str, Any]] = []
    total, next_cursor = 0, ""
    if kind not in PROPOSAL_KINDS:
        r = await inv.calls.call(CORTEX.ReviewList, inv.caller, pb.ReviewListRequest(
            kind=kind, cursor=pos if phase == "c" else "", limit=size if phase == "c" else 1,
            q=q))
        total += r.total
        if phase == "c":
            items = [review_item(i) for i in r.items]
            next_cursor = f"c{r.next_cursor}" if r.next_cursor else ""
    if kind in ("", *PROPOSAL_KINDS):
        p = await inv.calls.call(DREAMER.ListProposals, inv.caller,
                                 dreamer_pb2.ListProposalsRequest(kind=kind))
        found = [x for x in p.proposals if q.strip().lower() in x.summary.lower()]
        total += len(found)
        if not next_cursor:
            start = int(pos) if phase == "p" else 0
            end = start + size - len(items)
            items += [proposal_item(x) for x in found[start:end]]
            next_cursor = f"p{end}" if end < len(found) else ""
    return {"items": items, "next_cursor": next_cursor, "total": total}


def review_item(i: pb.ReviewItem) -> dict[str, Any]:
    item: dict[str, Any] = {"id": i.id, "kind": i.kind, "summary": i.summary,
                            "decide_call": i.decide_call}
    if i.HasField("conflict"):
        item["conflict"] = conflict_item(i.conflict)
    if i.HasField("contender"):
        item["contender"] = fact_item(i.contender, verbose=True)
    return item


def proposal_item(x: dreamer_pb2.Proposal) -> dict[str, Any]:
    return {"id": f"proposal:{x.id}", "kind": x.kind, "summary": x.summary,
            "evidence_quote": x.evidence_quote, "run_id": x.run_id,
            "decide_call": f"review_decide(item_id='proposal:{x.id}', "
                           "decision='approve' or 'reject', reasoning='...')"}


def review_decide(
    item_id: str, decision: Literal["approve", "reject", "winner", "both_stand"],
    reasoning: str, winner_id: str = "", namespace: Namespace = None,
) -> None:
    """Reviewer only: approve/reject a root tag or a dreamer proposal (an approved
    graph link is written as an inferred edge, an approved merge makes one entity an
    alias of the other and moves its facts, an approved fact merge retracts the
    duplicate; a rejected proposal is never proposed again), or settle a conflict
    (winner with winner_id, or both_stand). Returns
    {item_id, kind, status}."""


async def run_review_decide(inv: Invocation) -> dict[str, Any]:
    """A proposal is the dreamer's to apply; everything else the cortex's."""
    a = inv.args
    if a["item_id"].startswith("proposal:"):
        r = await inv.calls.call(DREAMER.DecideProposal, inv.caller,
                                 dreamer_pb2.DecideProposalRequest(
                                     proposal_id=a["item_id"].removeprefix("proposal:"),
                                     decision=a["decision"], reasoning=a["reasoning"]))
        return {"item_id": a["item_id"], "kind": r.proposal.kind, "status": r.proposal.status}
    r = await inv.calls.call(CORTEX.ReviewDecide, inv.caller, pb.ReviewDecideRequest(
        item_id=a["item_id"], decision=a["decision"], winner_id=a["winner_id"],
        reasoning=a["reasoning"]))
    return {"item_id": r.item_id, "kind": r.kind, "status": r.status}


C = CORTEX
W = Effect.ADDITIVE

TOOLS = [
    ToolSpec(world_set, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.SAFE, "a repeat confirms the fact",
        rpc=C.WorldSet,
        build=lambda a: pb.WorldSetRequest(
            entity=a["entity"], attribute=a["attribute"], value=a["value"],
            source_url=a["source_url"], source_quote=a["source_quote"],
            freshness=a["freshness"], confidence=a["confidence"]),
        shape=lambda r: {"action": r.action, "fact": world_item(r.fact)})},
        example={"entity": "e", "attribute": "a", "value": "v",
                 "source_url": "https://example.org", "source_quote": "v"}),
    ToolSpec(world_search, Tier.FULL, {"": read(
        C.WorldSearch, build=lambda a: pb.TextSearchRequest(query=a["query"],
                                                               top_k=a["top_k"]),
        shape=lambda r: {"facts": [world_item(f) for f in r.facts]})}, example={"query": "x"}),
    ToolSpec(outcome_record, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.CONDITIONAL, "safe with request_id (without, each call is one "
        "more signal towards a lesson)",
        rpc=C.RecordOutcome, shape=outcome_reply, keyed=True,
        build=lambda a: pb.OutcomeRequest(task=a["task"], outcome=a["outcome"],
                                          detail=a["detail"], used_ids=a["used_ids"] or []))},
        example={"task": "t", "outcome": "success"}),
    ToolSpec(lesson_search, Tier.FULL, {"": read(
        C.LessonSearch, build=lambda a: pb.TextSearchRequest(query=a["query"],
                                                                top_k=a["top_k"]),
        shape=lambda r: {"lessons": [lesson_item(x) for x in r.lessons]})},
        example={"query": "x"}),
    ToolSpec(tag_propose_root, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.SAFE, "a repeat reports the proposal's status",
        rpc=C.ProposeRootTag,
        build=lambda a: pb.TagRequest(tag=a["tag"], reason=a["reason"]),
        shape=lambda r: {"tag": r.tag, "status": r.status, "note": r.note})},
        example={"tag": "registrytest", "reason": "r"}),
    ToolSpec(tag_alias, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.SAFE, "the same alias again changes nothing",
        rpc=C.AddTagAlias,
        build=lambda a: pb.TagRequest(tag=a["tag"], alias=a["alias"]),
        shape=lambda r: {"tag": r.tag, "note": r.note})},
        example={"alias": "registry-py", "tag": "lang.python"}),
    ToolSpec(review_list, Tier.FULL, {"": read(run=run_review_list, rest="GET /v1/review")}),
    ToolSpec(review_decide, Tier.FULL, {"": op(
        Access.REVIEWER, Effect.DESTRUCTIVE, Retry.SAFE,
        "a decided item refuses a second decision", run=run_review_decide,
        rest="POST /v1/review/{item_id}/decide")},
        example={"item_id": "proposal:00000000-0000-0000-0000-000000000000",
                 "decision": "reject", "reasoning": "r"}),
]
