"""The toolset middleware asks coordination for the caller's tier only when
the answer can change the outcome: a tool every tier holds skips the lookup."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from engram_gateway.doors.toolsets import Toolsets
from engram_gateway.registry import TIERS


class CountingToolsets(Toolsets):
    def __init__(self) -> None:
        super().__init__("minimal", TIERS, backends=None)  # type: ignore[arg-type]
        self.lookups = 0

    async def _tier_of_token(self) -> str:
        self.lookups += 1
        return "minimal"


async def _call(toolsets: Toolsets, method: str, name: str) -> Any:
    async def call_next(_ctx: Any) -> str:
        return "served"
    return await toolsets(SimpleNamespace(method=method, params={"name": name}), call_next)


def test_a_tool_in_every_tier_is_served_without_a_lookup() -> None:
    toolsets = CountingToolsets()
    assert asyncio.run(_call(toolsets, "tools/call", "memory_store")) == "served"
    assert asyncio.run(_call(toolsets, "tools/call", "memory_search")) == "served"
    assert toolsets.lookups == 0


def test_a_larger_tier_tool_is_still_checked_and_refused() -> None:
    toolsets = CountingToolsets()
    larger = next(name for name, tier in TIERS.items() if tier > 0)
    result = asyncio.run(_call(toolsets, "tools/call", larger))
    assert toolsets.lookups == 1
    assert result.is_error and "not in your toolset" in result.content[0].text


def test_an_unknown_tool_name_is_still_checked() -> None:
    toolsets = CountingToolsets()
    asyncio.run(_call(toolsets, "tools/call", "no_such_tool"))
    assert toolsets.lookups == 1
