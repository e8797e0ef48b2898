"""The review queue: every open item (review_list) with both sides of a
conflict, evidence, sources, origins and times; filtered and paged on the
server; decided with one click and a required reason (review_decide, or
contender_decide for a parked contender)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.responses import Response

from .. import ops
from ..web import ConsoleError, Ctx, Page, back_to

KINDS = ("", "conflict", "root_tag", "contender", "graph_link", "merge_entity", "merge_fact",
         "merge_entries")
PAGE_SIZE, MAX_PAGE_SIZE = 25, 100


def _int(value: str, default: int, low: int, high: int) -> int:
    try:
        return max(low, min(high, int(value)))
    except ValueError:
        return default


async def _sides(ctx: Ctx, items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each conflict side in full (origin, source, both time axes), from its
    slot's history: one call per slot on the page."""
    slots = {(i["conflict"]["fact_a"]["entity"], i["conflict"]["fact_a"]["attribute"])
             for i in items if "conflict" in i}
    histories = await asyncio.gather(*(ops.run(ctx.backends, ctx.viewer, ctx.namespace,
                                               "fact_history", {"entity": e, "attribute": a})
                                       for e, a in slots))
    return {f["id"]: f for h in histories for f in h["facts"]}


async def queue(ctx: Ctx) -> Response:
    kind = ctx.arg("kind")
    if kind not in KINDS:
        raise ConsoleError(400, "invalid_argument", f"kind is one of {', '.join(KINDS[1:])}")
    q = ctx.arg("q")
    size = _int(ctx.arg("size"), PAGE_SIZE, 1, MAX_PAGE_SIZE)
    items = (await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "review_list",
                           {"kind": kind}))["items"]
    if q:
        items = [i for i in items if q.lower() in i["summary"].lower()]
    pages = max(1, -(-len(items) // size))
    number = _int(ctx.arg("page"), 1, 1, pages)
    shown = items[(number - 1) * size:number * size]
    return ctx.render("review.html", items=shown, sides=await _sides(ctx, shown),
                      total=len(items), kind=kind, kinds=KINDS, q=q, size=size,
                      number=number, pages=pages,
                      here=ctx.url("/review", kind=kind, q=q, size=size, page=number),
                      can_decide=ctx.may("review_decide"),
                      can_contend=ctx.may("contender_decide"))


def _decision(item_id: str, choice: str, reasoning: str) -> tuple[str, dict[str, Any]]:
    """The operation and arguments a console choice stands for."""
    if item_id.startswith("contender:"):
        return "contender_decide", {"fact_id": item_id.removeprefix("contender:"),
                                    "decision": choice, "reasoning": reasoning}
    if choice.startswith("winner:"):
        return "review_decide", {"item_id": item_id, "decision": "winner",
                                 "winner_id": choice.removeprefix("winner:"),
                                 "reasoning": reasoning}
    return "review_decide", {"item_id": item_id, "decision": choice, "reasoning": reasoning}


async def decide(ctx: Ctx) -> Response:
    item_id, choice = ctx.form.get("item_id", ""), ctx.form.get("choice", "")
    reasoning = ctx.form.get("reasoning", "").strip()
    tool, args = _decision(item_id, choice, reasoning)
    if not ctx.may(tool):
        raise ConsoleError(403, "permission_denied", f"{ctx.viewer.name} may not decide "
                           f"review items in {ctx.namespace} (it needs the reviewer role "
                           "and a read-write grant)")
    if not reasoning:
        raise ConsoleError(400, "invalid_argument", "a decision needs a reason")
    done = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, tool, args)
    status = done.get("status") or ("accepted" if choice == "accept" else "discarded")
    return ctx.done(back_to(ctx, ctx.url("/review")), f"{item_id}: {status}")


PAGES = [Page("/review", "Review", queue, {"decide": decide}, order=10)]
