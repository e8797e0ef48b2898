"""Search with the ranking trace: memory_search(explain=True) as an agent
would call it, with each result's channel ranks, fused score and lifts, and
what was not served and why."""

from __future__ import annotations

from starlette.responses import Response

from .. import ops
from ..web import Ctx, Page


async def search(ctx: Ctx) -> Response:
    query, top_k = ctx.arg("q"), ctx.arg("top_k", "10")
    found = None
    if query:
        found = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "memory_search",
                              {"query": query, "top_k": top_k, "explain": True,
                               "verbose": True, "as_of": ctx.arg("as_of") or None})
    return ctx.render("search.html", q=query, top_k=top_k, as_of=ctx.arg("as_of"),
                      found=found)


PAGES = [Page("/search", "Search", search, order=30)]
