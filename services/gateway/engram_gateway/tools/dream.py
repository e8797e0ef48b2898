"""Registry entries for the dreamer (status, run, runs, rollback) and for
`toolset`, which changes how many tools this principal sees."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from engram.v1 import common_pb2
from engram.v1 import dreamer_pb2 as pb

from ..rpcs import DREAMER
from ..shaping.knowledge import run_item
from .argtypes import uuid_arg
from .spec import Access, Args, Effect, Invocation, Namespace, Retry, Tier, ToolSpec, op, read

log = logging.getLogger(__name__)


def dream(
    action: Annotated[Literal["status", "run", "runs", "detail", "rollback"], Field(
        description="status | run a pass now | runs (journal) | detail of a run | "
        "rollback a run")] = "status",
    run_id: Annotated[str, uuid_arg("The run (detail, rollback).")] = "",
    limit: Annotated[int, Field(ge=0, le=200, description="runs: how many (0: 20); "
                                "detail: rows per list (0: 50).")] = 0,
    offset: Annotated[int, Field(ge=0, le=1_000_000, description="detail: rows to skip "
                                 "in each list.")] = 0,
    dry_run: Annotated[bool, Field(description="rollback: say what it would restore and "
                                   "remove; change nothing.")] = False,
    namespace: Namespace = None,
) -> None:
    """Background consolidation: turns stored memories into typed facts in the cortex.
    status says which extractor runs (rules, openai or none), what is pending and when
    passes start; run starts a pass now; runs lists the journal (inputs, counts,
    errors); detail shows one run with the rows it touched (entries read, facts
    written, entries quarantined; paged by offset/limit); rollback reverts a committed
    pass exactly, or refuses and says which later writes depend on it (dry_run: what it
    would change, without changing it); rollback needs the erase grant (reviewer or
    operator)."""


def status_reply(r: pb.DreamStatusResponse) -> dict[str, Any]:
    return {"extractor": r.extractor, "model": r.model or None,
            "pending_entries": r.pending_entries, "pending_marks": r.pending_marks,
            "triggers": r.triggers, "events_processed": r.events_processed,
            "consumer_connected": r.consumer_connected,
            "last_run": run_item(r.last_run) if r.HasField("last_run") else None}


def _run_id(a: Args) -> str:
    if not a["run_id"]:
        raise ToolError(f"{a['action']} needs run_id (see dream(action='runs'))")
    return a["run_id"]


def rollback_request(a: Args) -> pb.DreamRollbackRequest:
    return pb.DreamRollbackRequest(run_id=_run_id(a))


def detail_request(a: Args) -> pb.DreamRunDetailRequest:
    return pb.DreamRunDetailRequest(run_id=_run_id(a), offset=a["offset"], limit=a["limit"])


def _fact(f: pb.RunFact) -> dict[str, Any]:
    return {"fact_id": f.fact_id, "entry_id": f.entry_id, "action": f.action, "kind": f.kind}


def detail_reply(r: pb.DreamRunDetailResponse) -> dict[str, Any]:
    return {"run": run_item(r.run), "entries_read": list(r.entries_read),
            "facts_written": [_fact(f) for f in r.facts_written],
            "quarantined": [{"entry_id": q.entry_id, "reason": q.reason}
                            for q in r.quarantined],
            "totals": {"entries_read": r.total_entries_read,
                       "facts_written": r.total_facts_written,
                       "quarantined": r.total_quarantined}}


def preview_reply(r: pb.DreamRollbackPreviewResponse) -> dict[str, Any]:
    return {"run_id": r.run_id, "dry_run": True, "allowed": r.allowed,
            "blockers": list(r.blockers), "facts_reverted": [_fact(f) for f in r.facts_reverted],
            "entries_reopened": list(r.entries_reopened),
            "quarantine_cleared": list(r.quarantine_cleared),
            "proposals_withdrawn": r.proposals_withdrawn, "marks_reopened": r.marks_reopened,
            "archived_restored": r.archived_restored, "truncated": r.truncated,
            "note": "cortex refuses the revert when later writes depend on the run; that is "
                    "checked when the rollback is applied"}


async def run_rollback(inv: Invocation) -> dict[str, Any]:
    """dry_run: the preview; else the rollback itself."""
    request = rollback_request(inv.args)
    if inv.args["dry_run"]:
        return preview_reply(await inv.calls.call(DREAMER.RollbackPreview, inv.caller, request))
    r = await inv.calls.call(DREAMER.Rollback, inv.caller, request)
    return {"run_id": r.run_id, "reverted_rows": r.reverted, "run": run_item(r.run)}


def toolset(
    action: Annotated[Literal["status", "expand", "collapse"], Field(
        description="status | expand (one tier up) | collapse (one tier down)")] = "status",
    tier: Annotated[Literal["", "minimal", "core", "full"], Field(
        description="Go straight to this tier.")] = "",
) -> None:
    """How many engram tools you see: minimal (store, search, briefing), core (plus
    corrections, facts, recall, the board), full (everything). Returns {tier, tools}.
    Changing the tier sends tools/list_changed; list the tools again after it."""


async def run_toolset(inv: Invocation) -> dict[str, Any]:
    """Move this principal's tier and tell the client its tool list changed."""
    toolsets, (action, tier) = inv.extras["toolsets"], (inv.args["action"], inv.args["tier"])
    current = await toolsets.tier(inv.caller)
    wanted = toolsets.step(current, action, tier)
    if wanted != current:
        await toolsets.set(inv.caller, wanted)
        try:
            await inv.ctx.notify_tools_changed()
        except Exception as exc:  # no listener: the next tools/list shows it anyway
            log.debug("tools/list_changed not published", extra={"fields": {
                "error": repr(exc)}})
    return {"tier": wanted, "changed": wanted != current,
            "tools": toolsets.names(wanted) or "all engram tools"}


D = DREAMER

TOOLS = [
    ToolSpec(dream, Tier.FULL, {
        "status": read(D.Status, build=lambda a: pb.DreamStatusRequest(),
                       shape=status_reply, rest="GET /v1/dream/status", rest_args=()),
        "run": op(Access.WRITE, Effect.DESTRUCTIVE, Retry.UNSAFE,
                  "each call starts another pass (which may archive stale entries)",
                  rpc=D.Run, build=lambda a: pb.DreamRunRequest(),
                  shape=lambda r: {"run_id": r.run_id, "run": run_item(r.run)},
                  rest="POST /v1/dream/runs", rest_args=()),
        "runs": read(D.Runs, build=lambda a: pb.DreamRunsRequest(
            page=common_pb2.PageRequest(limit=a["limit"])),
            shape=lambda r: {"runs": [run_item(x) for x in r.runs]},
            rest="GET /v1/dream/runs", rest_args=("limit",)),
        "detail": read(D.RunDetail, build=detail_request, shape=detail_reply,
                       rest="GET /v1/dream/runs/{run_id}", rest_args=("offset", "limit")),
        "rollback": op(Access.ERASE, Effect.DESTRUCTIVE, Retry.SAFE,
                       "a rolled-back run refuses a second rollback; dry_run changes nothing",
                       run=run_rollback, rest="POST /v1/dream/runs/{run_id}/rollback",
                       rest_args=("dry_run",)),
    }, action_arg="action", example={"run_id": "00000000-0000-0000-0000-000000000000"}),
    ToolSpec(toolset, Tier.MINIMAL, {"": op(
        Access.READ, Effect.SESSION, Retry.CONDITIONAL,
        "tier= is safe to repeat; expand and collapse move one tier per call",
        run=run_toolset)}),
]
