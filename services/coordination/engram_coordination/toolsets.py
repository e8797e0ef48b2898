"""Principals' toolset tiers: which of the gateway's tiers a principal's
agents see, in every namespace. Kept here, in the database, so that every
gateway replica sees a tier set through any of them; a tier is
presentation, the gateway decides what each one shows. It is no data of a
namespace: a principal with a read grant may set its own."""

from __future__ import annotations

from typing import cast

import asyncpg

from engram.v1 import coordination_pb2 as pb
from engram_kit.context import CallerContext
from engram_kit.db import principal_tx
from engram_kit.errors import InvalidArgument

from . import repo_toolsets

TIERS = {pb.TOOLSET_TIER_MINIMAL, pb.TOOLSET_TIER_CORE, pb.TOOLSET_TIER_FULL}


class Toolsets:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def get(self, ctx: CallerContext) -> pb.ToolsetTier:
        async with principal_tx(self._pool, _principal(ctx)) as conn:
            value = await repo_toolsets.tier(conn, ctx.principal)
        return cast(pb.ToolsetTier, value)

    async def set(self, ctx: CallerContext, tier: pb.ToolsetTier) -> pb.ToolsetTier:
        """Setting the tier it already has changes nothing (a repeat is safe)."""
        if tier not in TIERS:
            raise InvalidArgument("tier must be minimal, core or full")
        async with principal_tx(self._pool, _principal(ctx)) as conn:
            await repo_toolsets.set_tier(conn, ctx.principal, int(tier))
        return tier


def _principal(ctx: CallerContext) -> str:
    if not ctx.principal:
        raise InvalidArgument("a toolset belongs to a principal: the call names none")
    return ctx.principal
