"""Registry entries for the dreamer (status, run, runs, rollback) and for
`toolset`, which changes how many tools this principal sees."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from engram.v1 import common_pb2
from engram.v1 import dreamer_pb2 as pb

from .clients import Service
from .shaping_knowledge import run_item
from .toolspec import Access, Args, Effect, Invocation, Namespace, Retry, Tier, ToolSpec, op, read

log = logging.getLogger(__name__)


def dream(
    action: Annotated[Literal["status", "run", "runs", "rollback"], Field(
        description="status | run a pass now | runs (journal) | rollback a run")] = "status",
    run_id: Annotated[str, Field(description="The run to roll back.")] = "",
    limit: Annotated[int, Field(ge=0, le=200)] = 0,
    namespace: Namespace = None,
) -> None:
    """Background consolidation: turns stored memories into typed facts in the cortex.
    status says which extractor runs (rules, openai or none), what is pending and when
    passes start; run starts a pass now; runs lists the journal (inputs, counts,
    errors); rollback reverts a committed pass exactly, or refuses and says which
    later writes depend on it."""


def status_reply(r: pb.DreamStatusResponse) -> dict[str, Any]:
    return {"extractor": r.extractor, "model": r.model or None,
            "pending_entries": r.pending_entries, "pending_marks": r.pending_marks,
            "triggers": r.triggers, "events_processed": r.events_processed,
            "consumer_connected": r.consumer_connected,
            "last_run": run_item(r.last_run) if r.HasField("last_run") else None}


def rollback_request(a: Args) -> pb.DreamRollbackRequest:
    if not a["run_id"]:
        raise ToolError("rollback needs run_id (see dream(action='runs'))")
    return pb.DreamRollbackRequest(run_id=a["run_id"])


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


D = Service.DREAMER

TOOLS = [
    ToolSpec(dream, Tier.FULL, {
        "status": read(D, "Status", build=lambda a: pb.DreamStatusRequest(),
                       shape=status_reply, rest="GET /v1/dream/status", rest_args=()),
        "run": op(Access.WRITE, Effect.DESTRUCTIVE, Retry.UNSAFE,
                  "each call starts another pass (which may archive stale entries)",
                  service=D, method="Run", build=lambda a: pb.DreamRunRequest(),
                  shape=lambda r: {"run_id": r.run_id, "run": run_item(r.run)},
                  rest="POST /v1/dream/runs", rest_args=()),
        "runs": read(D, "Runs", build=lambda a: pb.DreamRunsRequest(
            page=common_pb2.PageRequest(limit=a["limit"])),
            shape=lambda r: {"runs": [run_item(x) for x in r.runs]},
            rest="GET /v1/dream/runs", rest_args=("limit",)),
        "rollback": op(Access.WRITE, Effect.DESTRUCTIVE, Retry.SAFE,
                       "a rolled-back run refuses a second rollback",
                       service=D, method="Rollback", build=rollback_request,
                       shape=lambda r: {"run_id": r.run_id, "reverted_rows": r.reverted,
                                        "run": run_item(r.run)},
                       rest="POST /v1/dream/runs/{run_id}/rollback", rest_args=()),
    }, action_arg="action", example={"run_id": "00000000-0000-0000-0000-000000000000"}),
    ToolSpec(toolset, Tier.MINIMAL, {"": op(
        Access.READ, Effect.SESSION, Retry.CONDITIONAL,
        "tier= is safe to repeat; expand and collapse move one tier per call",
        run=run_toolset)}),
]
