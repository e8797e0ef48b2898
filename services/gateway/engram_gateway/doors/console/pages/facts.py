"""A fact slot: its timeline on both time axes (world valid time and the
system's recorded time), the value a reader gets now or as of a time, the
contenders, and retracted values (fact_get and fact_history)."""

from __future__ import annotations

from starlette.responses import Response

from .. import ops, svg
from ..web import Ctx, Page


async def fact(ctx: Ctx) -> Response:
    entity, attribute, as_of = ctx.arg("entity"), ctx.arg("attribute"), ctx.arg("as_of")
    if not entity:
        return ctx.render("fact.html", entity="", attribute="", as_of="", got=None,
                          history=[], world="", system="")
    args = {"entity": entity, "attribute": attribute}
    history = (await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "fact_history",
                             args))["facts"]
    got = None
    if attribute:
        got = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "fact_get",
                            args | {"verbose": True, "as_of": as_of or None})
    return ctx.render(
        "fact.html", entity=entity, attribute=attribute, as_of=as_of, got=got,
        history=history,
        world=svg.timeline(history, "valid_from", "valid_to", "world time: when it was true"),
        system=svg.timeline(history, "recorded_at", "retired_at",
                            "system time: when engram held it"))


PAGES = [Page("/fact", "Facts", fact, order=20)]
