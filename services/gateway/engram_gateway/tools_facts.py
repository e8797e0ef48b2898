"""MCP tools for canonical facts: set, get, history, retract, sets, conflicts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import cortex_pb2 as pb
from engram.v1 import memory_pb2
from engram_kit.timestamps import to_timestamp

from .auth import caller_for
from .clients import Backends
from .errors import tool_errors
from .shaping import parse_time, search_reply
from .shaping_facts import KIND_VALUES, conflict_item, fact_item, get_reply, member_reply, set_reply
from .tools import Namespace, RequestId, session_id

Kind = Literal["DECISION", "RULE", "STATE", "PREFERENCE", "REFERENCE", "RESIDUAL", "EVENT"]
Origin = Literal["user", "action", "agent", "assistant"]
Entity = Annotated[str, Field(description="What the fact is about, e.g. 'billing-api'.")]
Attribute = Annotated[str, Field(description="Which property, e.g. 'database'.")]
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True)
def register_fact_tools(mcp: MCPServer, backends: Backends) -> None:
    async def call(tool: str, method: str, ctx: Context, namespace: str | None, request: Any,
                   shape: Callable[[Any], dict[str, Any]],
                   request_id: str = "") -> dict[str, Any]:
        caller = caller_for(namespace, session_id(ctx), tool, request_id)
        with tool_errors(tool, caller.request_id):
            return shape(await backends.cortex(method, caller, request))

    @mcp.tool(annotations=WRITE)
    async def fact_set(
        entity: Entity, attribute: Attribute,
        value: Annotated[str, Field(description="The value (max 2000 chars).")],
        ctx: Context,
        kind: Annotated[Kind, Field(description="DECISION, RULE, STATE (default), PREFERENCE, "
                                    "REFERENCE, RESIDUAL (a known risk) or EVENT.")] = "STATE",
        evidence_quote: Annotated[str, Field(description="Verbatim words it comes from.")] = "",
        source_type: Annotated[str, Field(description="utterance, capture, file, commit, url "
                                          "or memory_entry.")] = "",
        source_ref: Annotated[str, Field(description="Where: path, URL, entry id.")] = "",
        origin: Annotated[Origin, Field(description="Who said it: user > action > agent > "
                                        "assistant.")] = "agent",
        valid_from: Annotated[str | None, Field(description="ISO time it became true.")] = None,
        confidence: Annotated[float, Field(gt=0, le=1)] = 1.0,
        replaces: Annotated[bool, Field(description="This replaces the current value.")] = False,
        supersedes: Annotated[str, Field(description="Id of the fact this replaces.")] = "",
        tags: Annotated[list[str] | None, Field(description="Dotted tags; unknown ones are "
                                                "reported, not created.")] = None,
        details: Annotated[dict[str, Any] | None, Field(description=(
            "Kind columns: scope (DECISION/RULE), trigger_predicate (RULE), status_detail and "
            "expected_lifetime_seconds (STATE), earned_by (PREFERENCE), risk_weight "
            "(RESIDUAL, 0-1), subject (EVENT/REFERENCE)."))] = None,
        namespace: Namespace = None,
        request_id: RequestId = "",
    ) -> dict[str, Any]:
        """Record a canonical fact: one current value per (entity, attribute) slot.

        Returns {action, lane, fact, related_id}: insert (new), confirm (already known,
        reworded or not), supersede (you said it replaces the old value: old kept as
        history), contest (it disagrees and nothing says which is right: both served as
        contested, with `conflict_id` and the `resolve_call` a reviewer makes; a RULE
        never auto-resolves), park (a weaker origin than the current value's, or a value
        retired before: kept as a contender; `reasserts_retired` names the old fact)."""
        request = pb.SetFactRequest(
            entity=entity, attribute=attribute, value=value, kind=KIND_VALUES[kind],
            evidence=pb.Evidence(quote=evidence_quote, source_type=source_type,
                                 source_ref=source_ref),
            origin=origin, valid_from=to_timestamp(parse_time(valid_from, "valid_from")),
            confidence=confidence, replaces=replaces, supersedes=supersedes,
            details=pb.KindDetails(**_details(details)), tags=tags or [])
        return await call("fact_set", "SetFact", ctx, namespace, request, set_reply,
                          request_id)

    @mcp.tool(annotations=READ)
    async def fact_get(
        entity: Entity, attribute: Attribute, ctx: Context,
        as_of: Annotated[str | None, Field(description="ISO time: the value then.")] = None,
        verbose: Annotated[bool, Field(description="Provenance and time axes.")] = False,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """What is X now (or as of a past time)? Returns {current, contenders, label,
        set_valued, layer}. Each fact carries a serving label: current; last known as of
        <date> (a STATE past its lifetime); history (an EVENT); contested (both sides, with
        the call that settles it); parked contenders are listed apart. With no fact in the
        slot, matching memory entries and documents are served instead under `fallback`,
        and `layer` names the layer that answered."""
        request = pb.GetFactRequest(entity=entity, attribute=attribute,
                                    as_of=to_timestamp(parse_time(as_of, "as_of")))
        reply = await call("fact_get", "GetFact", ctx, namespace, request,
                           lambda r: get_reply(r, verbose))
        if not reply["current"] and not as_of:
            reply |= await fall_through(backends, ctx, namespace, f"{entity} {attribute}")
        return reply

    @mcp.tool(annotations=READ)
    async def fact_history(
        entity: Entity, ctx: Context,
        attribute: Annotated[str, Field(description="One slot; empty: all of the entity.")]
        = "",
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Every value a slot (or entity) has had, oldest first, with verdicts, world time
        (valid_from/valid_to) and system time (recorded_at/retired_at)."""
        return await call("fact_history", "FactHistory", ctx, namespace,
                          pb.FactHistoryRequest(entity=entity, attribute=attribute),
                          lambda r: {"facts": [fact_item(f, True) for f in r.facts]})

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                          idempotent_hint=False))
    async def fact_retract(
        entity: Entity, attribute: Attribute,
        reason: Annotated[str, Field(description="Why it is wrong (1-500 chars).")],
        ctx: Context,
        value: Annotated[str, Field(description="Only this value; empty: the slot.")] = "",
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Withdraw a fact that was wrong. The row stays as history and its value is
        tombstoned: writing it again is flagged. Returns {retracted, ids}."""
        return await call("fact_retract", "RetractFact", ctx, namespace,
                          pb.RetractFactRequest(entity=entity, attribute=attribute,
                                                value=value, reason=reason),
                          lambda r: {"retracted": r.retracted, "ids": list(r.ids)})

    register_set_and_conflict_tools(mcp, call)


async def fall_through(backends: Backends, ctx: Context, namespace: str | None,
                       query: str) -> dict[str, Any]:
    """A thin fact layer falls through to entries and documents, labelled."""
    caller = caller_for(namespace, session_id(ctx), "fact_get")
    with tool_errors("fact_get", caller.request_id):
        found = await backends.memory("Search", caller,
                                      memory_pb2.SearchRequest(query=query, top_k=3))
    reply = search_reply(found, verbose=False, explain=False, facts=[])
    layer = reply["layer"] if reply["entries"] or reply.get("documents") else "none"
    return {"layer": layer, "fallback": {"entries": reply["entries"],
                                         "documents": reply.get("documents", []),
                                         "label": "not a canonical fact: raw memory that "
                                                  "matched the slot's words"}}


def register_set_and_conflict_tools(mcp: MCPServer, call: Callable[..., Any]) -> None:
    @mcp.tool(annotations=WRITE)
    async def set_add(entity: Entity, attribute: Attribute,
                      member: Annotated[str, Field(description="The member to add.")],
                      ctx: Context, kind: Kind = "STATE", evidence_quote: str = "",
                      origin: Origin = "agent", namespace: Namespace = None) -> dict[str, Any]:
        """Add a member to a set-valued slot (many current values, e.g. a team's members).
        Returns {action: insert|confirm|park, fact, members}."""
        request = pb.SetMemberRequest(entity=entity, attribute=attribute, member=member,
                                      kind=KIND_VALUES[kind], origin=origin,
                                      evidence=pb.Evidence(quote=evidence_quote))
        return await call("set_add", "SetAdd", ctx, namespace, request, member_reply)

    @mcp.tool(annotations=WRITE)
    async def set_remove(entity: Entity, attribute: Attribute, member: str, ctx: Context,
                         reason: str = "", namespace: Namespace = None) -> dict[str, Any]:
        """Remove a member from a set-valued slot; its row stays as history."""
        request = pb.SetMemberRequest(entity=entity, attribute=attribute, member=member,
                                      reason=reason)
        return await call("set_remove", "SetRemove", ctx, namespace, request, member_reply)

    @mcp.tool(annotations=READ)
    async def conflict_list(
        ctx: Context,
        status: Annotated[Literal["open", "resolved", "both_stand"], Field()] = "open",
        limit: Annotated[int, Field(ge=0, le=200)] = 0, namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Contested fact pairs, newest first, each with both sides and (when open) the
        exact conflict_resolve call that settles it."""
        return await call("conflict_list", "ListConflicts", ctx, namespace,
                          pb.ListConflictsRequest(status=status, limit=limit),
                          lambda r: {"conflicts": [conflict_item(c) for c in r.conflicts]})

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                          idempotent_hint=False))
    async def conflict_resolve(
        conflict_id: str, reasoning: Annotated[str, Field(description="Why (1-2000).")],
        ctx: Context,
        winner_id: Annotated[str, Field(description="The fact that is true.")] = "",
        both_stand: Annotated[bool, Field(description="Both are true (no real "
                                          "contradiction).")] = False,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Reviewer only: settle a conflict. winner_id keeps one fact, the other becomes
        history; both_stand returns both to active (refused on a conflict already settled)."""
        request = pb.ResolveConflictRequest(conflict_id=conflict_id, winner_id=winner_id,
                                            both_stand=both_stand, reasoning=reasoning)
        return await call("conflict_resolve", "ResolveConflict", ctx, namespace, request,
                          lambda r: {"conflict": conflict_item(r.conflict)})

    @mcp.tool(annotations=WRITE)
    async def alias_add(entity: Entity,
                        alias: Annotated[str, Field(description="Another name for it.")],
                        ctx: Context, namespace: Namespace = None) -> dict[str, Any]:
        """Make `alias` resolve to `entity` in every fact call. Returns {entity, alias}."""
        return await call("alias_add", "AddAlias", ctx, namespace,
                          pb.AddAliasRequest(entity=entity, alias=alias),
                          lambda r: {"entity": r.entity, "alias": r.alias})


DETAIL_TYPES = {"scope": str, "trigger_predicate": str, "status_detail": str,
                "expected_lifetime_seconds": int, "earned_by": str, "risk_weight": float,
                "subject": str}


def _details(details: dict[str, Any] | None) -> dict[str, Any]:
    out = {}
    for key, value in (details or {}).items():
        if key not in DETAIL_TYPES:
            raise ToolError(f"unknown detail {key!r}; known: {', '.join(DETAIL_TYPES)}")
        try:
            out[key] = DETAIL_TYPES[key](value)
        except (TypeError, ValueError):
            raise ToolError(f"detail {key} must be a {DETAIL_TYPES[key].__name__}") from None
    return out
