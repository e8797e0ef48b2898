"""Toolset tiers: how many tools an agent sees. `minimal` is enough to
remember and recall, `core` adds corrections, facts, recall and the board,
`full` is everything. The tier is per principal and namespace, kept by the
coordination service so that every gateway replica sees the same one (the
default comes from settings); `tools/list` shows the tier's tools, a call to
a tool outside it is refused with the call that expands it, and changing the
tier publishes tools/list_changed."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ListToolsResult, TextContent

from engram.v1 import coordination_pb2 as pb
from engram_kit.context import CallerContext
from engram_kit.errors import DomainError

from ..clients import Backends
from ..pipeline.admit import Refused, admit
from ..rpcs import COORDINATION
from ..tools.spec import Access
from .mcp_auth import token_identity

log = logging.getLogger(__name__)
TIERS = ("minimal", "core", "full")
LOOKUP_TIMEOUT_S = 2.0
_WIRE = {"minimal": pb.TOOLSET_TIER_MINIMAL, "core": pb.TOOLSET_TIER_CORE,
         "full": pb.TOOLSET_TIER_FULL}
_NAMES = {v: k for k, v in _WIRE.items()}


class Toolsets:
    """`tiers` maps each tool to the smallest tier it is in (the registry)."""

    def __init__(self, default: str, tiers: Mapping[str, int], backends: Backends) -> None:
        if default not in TIERS:
            raise ValueError(f"default toolset must be one of {', '.join(TIERS)}")
        self.default = default
        self._tiers = dict(tiers)
        self._backends = backends

    async def tier(self, caller: CallerContext) -> str:
        # Asked before every tools/list and tools/call: with coordination down
        # the answer is the default within LOOKUP_TIMEOUT_S, not after the
        # full retry budget of a tool's own call.
        reply = await self._backends.call(COORDINATION.GetToolset, caller,
                                          pb.GetToolsetRequest(), resend=True, attempts=2,
                                          timeout_s=LOOKUP_TIMEOUT_S)
        return _NAMES.get(reply.tier, self.default)

    async def set(self, caller: CallerContext, tier: str) -> None:
        """Idempotent: setting the tier again changes nothing, so it is resent."""
        await self._backends.call(COORDINATION.SetToolset, caller,
                                  pb.SetToolsetRequest(tier=_WIRE[tier]), resend=True)

    async def _tier_of_token(self) -> str:
        """The authenticated caller's tier in its first namespace. The
        default when it cannot be read: a tier only trims what an agent
        sees, so an outage of coordination must not fail tools/list."""
        who = token_identity()
        if who is None:
            return self.default
        try:
            caller = admit(who, None, "", Access.READ, "toolset", metered=False)
            return await self.tier(caller)
        except (DomainError, Refused) as exc:
            log.warning("toolset tier unavailable; the default applies", extra={
                "fields": {"principal": who.name, "error": str(exc)}})
            return self.default

    def _in_every_tier(self, tool: str) -> bool:
        return self._tiers.get(tool, len(TIERS)) == 0

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
        if ctx.method not in ("tools/call", "tools/list"):
            return await call_next(ctx)
        if ctx.method == "tools/call" and self._in_every_tier((ctx.params or {}).get("name", "")):
            # Every tier allows it, so the tier is not looked up: the common
            # calls (store, search) pay no extra round trip to coordination.
            return await call_next(ctx)
        tier = await self._tier_of_token()
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
