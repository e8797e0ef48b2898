"""The board: agents (board_agents list), leases with their queues
(board_lease list) and mail counts from memory_stats. Never a mail body: the
console reads no inbox."""

from __future__ import annotations

import asyncio

from starlette.responses import Response

from .. import ops
from ..web import Ctx, Page


async def board(ctx: Ctx) -> Response:
    agents, leases, stats = await asyncio.gather(
        ops.run(ctx.backends, ctx.viewer, ctx.namespace, "board_agents", {"limit": 50},
                action="list"),
        ops.run(ctx.backends, ctx.viewer, ctx.namespace, "board_lease", action="list"),
        ops.run(ctx.backends, ctx.viewer, ctx.namespace, "memory_stats"))
    return ctx.render("board.html", agents=agents, leases=leases.get("leases", []),
                      board=stats["board"])


PAGES = [Page("/board", "Board", board, order=60)]
