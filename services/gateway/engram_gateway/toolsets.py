"""Toolset tiers: how many tools an agent sees. `minimal` is enough to
remember and recall, `core` adds corrections, facts, recall and the board,
`full` is everything. The tier is per principal (in this gateway process,
default from settings); `tools/list` shows the tier's tools, a call to a tool
outside it is refused with the call that expands it, and changing the tier
publishes tools/list_changed."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ListToolsResult, TextContent

TIERS = ("minimal", "core", "full")


class Toolsets:
    """`tiers` maps each tool to the smallest tier it is in (the registry)."""

    def __init__(self, default: str, tiers: Mapping[str, int]) -> None:
        if default not in TIERS:
            raise ValueError(f"default toolset must be one of {', '.join(TIERS)}")
        self.default = default
        self._tiers = dict(tiers)
        self._by_principal: dict[str, str] = {}
        self._lock = threading.Lock()

    def tier(self, principal: str) -> str:
        with self._lock:
            return self._by_principal.get(principal, self.default)

    def set(self, principal: str, tier: str) -> None:
        with self._lock:
            self._by_principal[principal] = tier

    def allows(self, tier: str, tool: str) -> bool:
        return tier == "full" or self._tiers.get(tool, len(TIERS)) <= TIERS.index(tier)

    def names(self, tier: str) -> list[str]:
        """The tools of a tier, sorted; empty for full (every tool)."""
        return [] if tier == "full" else sorted(t for t in self._tiers if self.allows(tier, t))

    @staticmethod
    def step(current: str, action: str, tier: str) -> str:
        """The tier a toolset call asks for: `tier` itself, or one step from
        `current` for expand/collapse, or `current` for status."""
        if tier:
            wanted = tier
        elif action == "status":
            wanted = current
        else:
            step = 1 if action == "expand" else -1
            wanted = TIERS[max(0, min(len(TIERS) - 1, TIERS.index(current) + step))]
        if wanted not in TIERS:
            raise ToolError(f"tier is one of {', '.join(TIERS)}")
        return wanted

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        """ServerMiddleware: filter tools/list, refuse calls outside the tier."""
        token = get_access_token()
        tier = self.tier(token.client_id) if token is not None else self.default
        if ctx.method == "tools/call" and tier != "full":
            name = (ctx.params or {}).get("name", "")
            if not self.allows(tier, name) and name:
                return CallToolResult(is_error=True, content=[TextContent(
                    type="text", text=f"tool {name!r} is not in your toolset {tier!r}; call "
                    "toolset(action='expand') (or tier='full') to use it")])
        result = await call_next(ctx)
        if ctx.method != "tools/list" or tier == "full":
            return result
        if isinstance(result, ListToolsResult):
            return result.model_copy(update={"tools": [
                t for t in result.tools if self.allows(tier, t.name)]})
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            return {**result, "tools": [t for t in result["tools"]
                                        if self.allows(tier, t.get("name", ""))]}
        return result
