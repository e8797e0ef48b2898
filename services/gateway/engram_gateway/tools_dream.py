"""MCP tool for the dreamer: status, run, runs, rollback."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import common_pb2, dreamer_pb2

from .auth import caller_for
from .clients import Backends
from .errors import tool_errors
from .shaping import iso_time
from .tools import Namespace, session_id


def run_item(r: dreamer_pb2.DreamRun) -> dict[str, Any]:
    return {"id": r.id, "status": r.status, "trigger": r.trigger, "extractor": r.extractor,
            "model": r.model or None, "started_at": iso_time(r, "started_at"),
            "finished_at": iso_time(r, "finished_at"), "entries": r.entries,
            "candidates": r.candidates, "facts_written": r.facts_written,
            "dropped_unanchored": r.dropped_unanchored, "quarantined": r.quarantined,
            "errors": r.errors, "proposals": r.proposals, "archived": r.archived,
            "counts": json.loads(r.counts_json or "{}"),
            "error_detail": r.error_detail or None}


def register_dream_tools(mcp: MCPServer, backends: Backends) -> None:
    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                          idempotent_hint=False))
    async def dream(
        ctx: Context,
        action: Annotated[Literal["status", "run", "runs", "rollback"], Field(
            description="status | run a pass now | runs (journal) | rollback a run")] = "status",
        run_id: Annotated[str, Field(description="The run to roll back.")] = "",
        limit: Annotated[int, Field(ge=0, le=200)] = 0,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Background consolidation: turns stored memories into typed facts in the cortex.
        status says which extractor runs (rules, openai or none), what is pending and when
        passes start; run starts a pass now; runs lists the journal (inputs, counts,
        errors); rollback reverts a committed pass exactly, or refuses and says which
        later writes depend on it."""
        caller = caller_for(namespace, session_id(ctx), f"dream:{action}")
        with tool_errors("dream", caller.request_id):
            if action == "status":
                r = await backends.dreamer("Status", caller, dreamer_pb2.DreamStatusRequest())
                return {"extractor": r.extractor, "model": r.model or None,
                        "pending_entries": r.pending_entries,
                        "pending_marks": r.pending_marks, "triggers": r.triggers,
                        "events_processed": r.events_processed,
                        "consumer_connected": r.consumer_connected,
                        "last_run": run_item(r.last_run) if r.HasField("last_run") else None}
            if action == "run":
                r = await backends.dreamer("Run", caller, dreamer_pb2.DreamRunRequest())
                return {"run_id": r.run_id, "run": run_item(r.run)}
            if action == "runs":
                r = await backends.dreamer("Runs", caller, dreamer_pb2.DreamRunsRequest(
                    page=common_pb2.PageRequest(limit=limit)))
                return {"runs": [run_item(x) for x in r.runs]}
            if not run_id:
                raise ToolError("rollback needs run_id (see dream(action='runs'))")
            r = await backends.dreamer("Rollback", caller,
                                       dreamer_pb2.DreamRollbackRequest(run_id=run_id))
            return {"run_id": r.run_id, "reverted_rows": r.reverted, "run": run_item(r.run)}
