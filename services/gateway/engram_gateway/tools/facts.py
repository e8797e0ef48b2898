"""Registry entries for canonical facts: set, get, history, retract, sets,
conflicts, aliases, verification."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from engram.v1 import cortex_pb2 as pb
from engram.v1 import memory_pb2
from engram_kit.fact_kinds import KINDS
from engram_kit.timestamps import to_timestamp
from engram_kit.vocab import ConflictStatus, Origin

from ..rpcs import CORTEX, MEMORY
from ..shaping.common import parse_time, search_reply
from ..shaping.facts import (
    KIND_VALUES,
    conflict_item,
    fact_item,
    get_reply,
    member_reply,
    set_reply,
)
from .argtypes import (
    AttributeName,
    EntityName,
    FactTags,
    IsoTime,
    OptionalUuid,
    SourceType,
    one_of,
    plain_arg,
    text_arg,
)
from .fact_args import KIND_COLUMNS, Details
from .spec import (
    Access,
    Args,
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

Kind = Annotated[str, one_of(*KINDS)]
FactOrigin = Annotated[str, one_of(*Origin)]
Entity = Annotated[EntityName, Field(description="What the fact is about, e.g. "
                                    "'billing-api'.")]
Attribute = Annotated[AttributeName, Field(description="Which property, e.g. 'database'.")]


def fact_set(
    entity: Entity, attribute: Attribute,
    value: Annotated[str, text_arg(2000, "The value (max 2000 chars).")],
    kind: Annotated[Kind, Field(description="DECISION, RULE, STATE (default), PREFERENCE, "
                                "REFERENCE, RESIDUAL (a known risk) or EVENT.")] = "STATE",
    evidence_quote: Annotated[str, plain_arg(4000, "Verbatim words it comes from.")] = "",
    source_type: Annotated[SourceType, Field(description="utterance, capture, file, commit, "
                                             "url or memory_entry.")] = "",
    source_ref: Annotated[str, plain_arg(500, "Where: path, URL, entry id.")] = "",
    origin: Annotated[FactOrigin, Field(description="Who said it: user > action > agent > "
                                    "assistant.")] = "agent",
    valid_from: Annotated[IsoTime | None, Field(description="ISO time it became true.")] = None,
    confidence: Annotated[float, Field(gt=0, le=1)] = 1.0,
    replaces: Annotated[bool, Field(description="This replaces the current value.")] = False,
    supersedes: Annotated[OptionalUuid, Field(description="Id of the fact this replaces.")] = "",
    tags: Annotated[FactTags | None, Field(description="Dotted tags; unknown ones are "
                                           "reported, not created.")] = None,
    details: Annotated[Details | None, Field(description=(
        "Kind columns: scope (DECISION/RULE), trigger_predicate (RULE), status_detail and "
        "expected_lifetime_seconds (STATE), earned_by (RULE/PREFERENCE), risk_weight "
        "(RESIDUAL, 0-1), subject (EVENT/REFERENCE), reopen_trigger (DECISION); another "
        "kind's column is refused."))] = None,
    reopen_trigger: Annotated[str, plain_arg(1000, (
        "DECISION only: when to revisit it, e.g. 'if p95 latency passes 200 ms' "
        "(max 1000 chars; here or in details, not both)."))] = "",
    earned_by: Annotated[str, plain_arg(1000, (
        "RULE (or PREFERENCE) only: the incident or evidence that earned it "
        "(max 1000 chars; here or in details, not both)."))] = "",
    namespace: Namespace = None,
    request_id: RequestId = "",
) -> None:
    """Record a canonical fact: one current value per (entity, attribute) slot.
    Writing the current value again (reworded or not) confirms it and stamps it
    verified now.

    Returns {action, lane, fact, related_id}: insert (new), confirm (already known,
    reworded or not), supersede (you said it replaces the old value: old kept as
    history), contest (it disagrees and nothing says which is right: both served as
    contested, with `conflict_id` and the `resolve_call` a reviewer makes; a RULE
    never auto-resolves), park (a weaker origin than the current value's, or a value
    retired before: kept as a contender; `reasserts_retired` names the old fact)."""


def set_request(a: Args) -> pb.SetFactRequest:
    return pb.SetFactRequest(
        entity=a["entity"], attribute=a["attribute"], value=a["value"],
        kind=KIND_VALUES[a["kind"]],
        evidence=pb.Evidence(quote=a["evidence_quote"], source_type=a["source_type"],
                             source_ref=a["source_ref"]),
        origin=a["origin"], valid_from=to_timestamp(parse_time(a["valid_from"], "valid_from")),
        confidence=a["confidence"], replaces=a["replaces"], supersedes=a["supersedes"],
        details=pb.KindDetails(**_details(a["details"], reopen_trigger=a["reopen_trigger"],
                                          earned_by=a["earned_by"])), tags=a["tags"] or [])


def fact_get(
    entity: Entity, attribute: Attribute,
    as_of: Annotated[IsoTime | None, Field(description="ISO time: the value then.")] = None,
    verbose: Annotated[bool, Field(description="Provenance and time axes.")] = False,
    namespace: Namespace = None,
) -> None:
    """What is X now (or as of a past time)? Returns {current, contenders, label,
    set_valued, layer}. Each fact carries a serving label: current; last known as of
    <date> (a STATE past its lifetime); history (an EVENT); contested (both sides, with
    the call that settles it); parked contenders are listed apart. With no fact in the
    slot, matching memory entries and documents are served instead under `fallback`,
    and `layer` names the layer that answered."""


async def run_get(inv: Invocation) -> dict[str, Any]:
    """The slot's facts; an empty slot falls through to entries and documents."""
    a = inv.args
    request = pb.GetFactRequest(entity=a["entity"], attribute=a["attribute"],
                                as_of=to_timestamp(parse_time(a["as_of"], "as_of")))
    reply = get_reply(await inv.calls.call(CORTEX.GetFact, inv.caller, request), a["verbose"])
    if reply["current"] or a["as_of"]:
        return reply
    found = await inv.calls.call(MEMORY.Search, inv.caller, memory_pb2.SearchRequest(
        query=f"{a['entity']} {a['attribute']}", top_k=3))
    entries = search_reply(found, verbose=False, explain=False, facts=[])
    layer = entries["layer"] if entries["entries"] or entries.get("documents") else "none"
    return reply | {"layer": layer, "fallback": {
        "entries": entries["entries"], "documents": entries.get("documents", []),
        "label": "not a canonical fact: raw memory that matched the slot's words"}}


def fact_history(
    entity: Entity,
    attribute: Annotated[str, plain_arg(200, "One slot; empty: all of the entity.")] = "",
    namespace: Namespace = None,
) -> None:
    """Every value a slot (or entity) has had, oldest first, with verdicts, world time
    (valid_from/valid_to) and system time (recorded_at/retired_at)."""


def fact_retract(
    entity: Entity, attribute: Attribute,
    reason: Annotated[str, text_arg(500, "Why it is wrong (1-500 chars).")],
    value: Annotated[str, plain_arg(2000, "Only this value; empty: the slot.")] = "",
    namespace: Namespace = None,
) -> None:
    """Withdraw a fact that was wrong. The row stays as history and its value is
    tombstoned: writing it again is flagged. Returns {retracted, ids}."""


def set_add(entity: Entity, attribute: Attribute,
            member: Annotated[str, Field(description="The member to add.")],
            kind: Kind = "STATE", evidence_quote: str = "",
            origin: FactOrigin = "agent", namespace: Namespace = None) -> None:
    """Add a member to a set-valued slot (many current values, e.g. a team's members).
    Returns {action: insert|confirm|park, fact, members}."""


def set_remove(entity: Entity, attribute: Attribute, member: str,
               reason: str = "", namespace: Namespace = None) -> None:
    """Remove a member from a set-valued slot; its row stays as history."""


def conflict_list(
    status: Annotated[str, one_of(*ConflictStatus)] = "open",
    limit: Annotated[int, Field(ge=0, le=200)] = 0, namespace: Namespace = None,
) -> None:
    """Contested fact pairs, newest first, each with both sides and (when open) the
    exact conflict_resolve call that settles it."""


def conflict_resolve(
    conflict_id: str, reasoning: Annotated[str, Field(description="Why (1-2000).")],
    winner_id: Annotated[str, Field(description="The fact that is true.")] = "",
    both_stand: Annotated[bool, Field(description="Both are true (no real "
                                      "contradiction).")] = False,
    namespace: Namespace = None,
) -> None:
    """Reviewer only: settle a conflict. winner_id keeps one fact, the other becomes
    history; both_stand returns both to active (refused on a conflict already settled)."""


def alias_add(entity: Entity,
              alias: Annotated[str, Field(description="Another name for it.")],
              namespace: Namespace = None) -> None:
    """Make `alias` resolve to `entity` in every fact call. Returns {entity, alias}."""


def fact_verify(entity: Entity, attribute: Attribute, namespace: Namespace = None) -> None:
    """Say the slot's current value still holds (you checked it). Stamps
    last_verified_at: a STATE's `last known as of` label counts from here, and
    `re_verify` (its evidence entry was superseded or contested) clears. Returns
    {facts}. A contested slot has no single value to verify: settle it first."""


def _details(details: Mapping[str, Any] | None, **columns: str) -> dict[str, Any]:
    """`details` (validated, KIND_COLUMNS held), with the kind columns that
    are also arguments of their own."""
    return {**(details or {}), **{k: v for k, v in columns.items() if v}}


C = CORTEX
W, D = Effect.ADDITIVE, Effect.DESTRUCTIVE
SLOT = {"entity": "registry-test", "attribute": "state"}

TOOLS = [
    ToolSpec(fact_set, Tier.CORE, {"": op(
        Access.WRITE, W, Retry.CONDITIONAL, "safe with request_id (without, a repeat "
        "confirms the fact again: one more confirmation)",
        rpc=C.SetFact, build=set_request, shape=set_reply, keyed=True,
        rest="POST /v1/facts")},
        example=SLOT | {"value": "x"}, rules=(KIND_COLUMNS,)),
    ToolSpec(fact_get, Tier.CORE, {"": read(run=run_get, rest="GET /v1/facts")}, example=SLOT),
    ToolSpec(fact_history, Tier.CORE, {"": read(
        C.FactHistory, build=lambda a: pb.FactHistoryRequest(entity=a["entity"],
                                                                attribute=a["attribute"]),
        shape=lambda r: {"facts": [fact_item(f, True) for f in r.facts]},
        rest="GET /v1/facts/history")}, example=SLOT),
    ToolSpec(fact_retract, Tier.FULL, {"": op(
        Access.WRITE, D, Retry.SAFE, "a repeat finds nothing left to retract",
        rpc=C.RetractFact,
        build=lambda a: pb.RetractFactRequest(entity=a["entity"], attribute=a["attribute"],
                                              value=a["value"], reason=a["reason"]),
        shape=lambda r: {"retracted": r.retracted, "ids": list(r.ids)},
        rest="POST /v1/facts/retract")},
        example=SLOT | {"reason": "test"}),
    ToolSpec(set_add, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.SAFE, "a repeat confirms the member",
        rpc=C.SetAdd, shape=member_reply,
        build=lambda a: pb.SetMemberRequest(
            entity=a["entity"], attribute=a["attribute"], member=a["member"],
            kind=KIND_VALUES[a["kind"]], origin=a["origin"],
            evidence=pb.Evidence(quote=a["evidence_quote"])))},
        example=SLOT | {"member": "x"}),
    ToolSpec(set_remove, Tier.FULL, {"": op(
        Access.WRITE, D, Retry.SAFE, "a repeat finds the member already gone",
        rpc=C.SetRemove, shape=member_reply,
        build=lambda a: pb.SetMemberRequest(entity=a["entity"], attribute=a["attribute"],
                                            member=a["member"], reason=a["reason"]))},
        example=SLOT | {"member": "x"}),
    ToolSpec(conflict_list, Tier.FULL, {"": read(
        C.ListConflicts, build=lambda a: pb.ListConflictsRequest(status=a["status"],
                                                                    limit=a["limit"]),
        shape=lambda r: {"conflicts": [conflict_item(c) for c in r.conflicts]},
        rest="GET /v1/conflicts")}),
    ToolSpec(conflict_resolve, Tier.FULL, {"": op(
        Access.REVIEWER, D, Retry.SAFE, "a settled conflict refuses a second decision",
        rpc=C.ResolveConflict,
        build=lambda a: pb.ResolveConflictRequest(
            conflict_id=a["conflict_id"], winner_id=a["winner_id"],
            both_stand=a["both_stand"], reasoning=a["reasoning"]),
        shape=lambda r: {"conflict": conflict_item(r.conflict)},
        rest="POST /v1/conflicts/{conflict_id}/resolve")},
        example={"conflict_id": "00000000-0000-0000-0000-000000000000", "reasoning": "r",
                 "both_stand": True}),
    ToolSpec(alias_add, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.SAFE, "the same alias again changes nothing",
        rpc=C.AddAlias,
        build=lambda a: pb.AddAliasRequest(entity=a["entity"], alias=a["alias"]),
        shape=lambda r: {"entity": r.entity, "alias": r.alias})},
        example={"entity": "registry-test", "alias": "registry-alias"}),
    ToolSpec(fact_verify, Tier.CORE, {"": op(
        Access.WRITE, W, Retry.SAFE, "a repeat stamps the same slot verified again",
        rpc=C.VerifyFact,
        build=lambda a: pb.VerifyFactRequest(entity=a["entity"], attribute=a["attribute"]),
        shape=lambda r: {"facts": [fact_item(f) for f in r.facts]})}, example=SLOT),
]
