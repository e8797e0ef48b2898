"""The `toolset` tool: see or change how many tools this principal sees."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from .auth import caller_for
from .tools import session_id
from .toolsets import CORE, MINIMAL, TIERS, Toolsets

log = logging.getLogger(__name__)


def register_toolset_tool(mcp: MCPServer, toolsets: Toolsets) -> None:
    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                          idempotent_hint=True))
    async def toolset(
        ctx: Context,
        action: Annotated[Literal["status", "expand", "collapse"], Field(
            description="status | expand (one tier up) | collapse (one tier down)")] = "status",
        tier: Annotated[Literal["", "minimal", "core", "full"], Field(
            description="Go straight to this tier.")] = "",
    ) -> dict[str, Any]:
        """How many engram tools you see: minimal (store, search, briefing), core (plus
        corrections, facts, recall, the board), full (everything). Returns {tier, tools}.
        Changing the tier sends tools/list_changed; list the tools again after it."""
        caller = caller_for(None, session_id(ctx), "toolset")
        current = toolsets.tier(caller.principal)
        if action == "status" and not tier:
            wanted = current
        elif tier:
            wanted = tier
        else:
            step = 1 if action == "expand" else -1
            wanted = TIERS[max(0, min(len(TIERS) - 1, TIERS.index(current) + step))]
        if wanted not in TIERS:
            raise ToolError(f"tier is one of {', '.join(TIERS)}")
        if wanted != current:
            toolsets.set(caller.principal, wanted)
            try:
                await ctx.notify_tools_changed()
            except Exception as exc:  # no listener: the next tools/list shows it anyway
                log.debug("tools/list_changed not published", extra={"fields": {
                    "error": repr(exc)}})
        names = sorted(MINIMAL if wanted == "minimal" else CORE if wanted == "core" else [])
        return {"tier": wanted, "changed": wanted != current,
                "tools": names or "all engram tools"}
