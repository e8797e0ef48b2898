"""Toolset tiers: how many tools an agent sees. `minimal` is enough to
remember and recall, `core` adds corrections, facts, recall and the board,
`full` is everything. The tier is per principal (in this gateway process,
default from settings); `tools/list` shows the tier's tools, a call to a tool
outside it is refused with the call that expands it, and changing the tier
publishes tools/list_changed."""

from __future__ import annotations

import threading
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.types import CallToolResult, ListToolsResult, TextContent

MINIMAL = frozenset({"memory_store", "memory_search", "briefing", "toolset"})
CORE = MINIMAL | {"memory_get", "memory_recent", "memory_supersede", "memory_forget",
                  "memory_reinforce", "memory_rescue", "episode_start", "episode_end",
                  "document_search", "fact_set", "fact_get", "fact_history", "memory_recall",
                  "board_agents", "board_lease", "board_message"}
TIERS = ("minimal", "core", "full")


class Toolsets:
    def __init__(self, default: str) -> None:
        if default not in TIERS:
            raise ValueError(f"default toolset must be one of {', '.join(TIERS)}")
        self.default = default
        self._by_principal: dict[str, str] = {}
        self._lock = threading.Lock()

    def tier(self, principal: str) -> str:
        with self._lock:
            return self._by_principal.get(principal, self.default)

    def set(self, principal: str, tier: str) -> None:
        with self._lock:
            self._by_principal[principal] = tier

    @staticmethod
    def allows(tier: str, tool: str) -> bool:
        return tier == "full" or tool in (MINIMAL if tier == "minimal" else CORE)

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
