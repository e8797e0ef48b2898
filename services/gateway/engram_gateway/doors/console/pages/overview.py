"""Overview: the services' health (what /readyz reports), each granted
namespace's counts (memory_stats), the dreamer's backlog and last runs and,
for an operator, whether the namespace's audit chains verify."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.responses import Response

from .. import ops
from ..web import ConsoleError, Ctx, Page
from .audit import operator_only, verification


async def _stats(ctx: Ctx, ns: str) -> dict[str, Any]:
    try:
        return await ops.run(ctx.backends, ctx.viewer, ns, "memory_stats")
    except ConsoleError as exc:
        return {"error": exc.message}


async def overview(ctx: Ctx) -> Response:
    health = await ctx.backends.ready()
    stats = await asyncio.gather(*(_stats(ctx, n) for n in ctx.viewer.namespaces))
    try:
        status = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "dream", action="status")
        runs = (await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "dream",
                              {"limit": 5}, action="runs"))["runs"]
    except ConsoleError as exc:
        status, runs = {"error": exc.message}, []
    audit = await verification(ctx) if operator_only(ctx.viewer) else None
    return ctx.render("overview.html", health=health, audit=audit,
                      stats=list(zip(ctx.viewer.namespaces, stats, strict=True)),
                      dream=status, runs=runs)


PAGES = [Page("/", "Overview", overview, order=0)]
