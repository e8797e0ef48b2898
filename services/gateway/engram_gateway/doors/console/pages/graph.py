"""An entity's neighbourhood (graph_neighbors) drawn as SVG, each edge with
its provenance, and the pending link proposals that touch it decided in
place (review items of kind graph_link)."""

from __future__ import annotations

from starlette.responses import Response

from .. import ops, svg
from ..web import Ctx, Page


async def graph(ctx: Ctx) -> Response:
    entity, depth = ctx.arg("entity"), ctx.arg("depth", "1")
    got, drawing, proposals = None, "", []
    if entity:
        got = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "graph_neighbors",
                            {"entity": entity, "depth": depth})
        drawing = svg.neighbourhood(entity, got["nodes"], got["edges"],
                                    lambda e: ctx.url("/graph", entity=e, depth=depth))
        items = (await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "review_list",
                               {"kind": "graph_link"}))["items"]
        proposals = [i for i in items if entity.lower() in i["summary"].lower()]
    return ctx.render("graph.html", entity=entity, depth=depth, got=got, drawing=drawing,
                      proposals=proposals, can_decide=ctx.may("review_decide"),
                      here=ctx.url("/graph", entity=entity, depth=depth))


PAGES = [Page("/graph", "Graph", graph, order=40)]
