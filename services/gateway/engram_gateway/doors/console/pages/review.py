"""The review queue: every open item (review_list) with both sides of a
conflict or a parked contender, evidence, sources, origins and times;
filtered (kind, text) and keyset-paged by the server (review_list's cursor);
decided with one click and a required reason (review_decide, or
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
# "previous" walks back over the cursors carried in the URL ('~' is outside a cursor's alphabet).
TRAIL_SEP, MAX_TRAIL = "~", 20


def _int(value: str, default: int, low: int, high: int) -> int:
    try:
        return max(low, min(high, int(value)))
    except ValueError:
        return default


def _trail(value: str) -> list[str]:
    """The cursors of the pages before this one (for "previous"), newest last;
    only the last MAX_TRAIL are kept, so "previous" past them goes to the first page."""
    trail = [c for c in value.split(TRAIL_SEP) if c] if value else []
    if len(trail) > MAX_TRAIL or any(len(c) > 300 for c in trail):
        raise ConsoleError(400, "invalid_argument", "trail is not one this page gave out; "
                           "start again from the first page")
    return trail


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
    q, cursor, trail = ctx.arg("q"), ctx.arg("cursor"), _trail(ctx.arg("trail"))
    size = _int(ctx.arg("size"), PAGE_SIZE, 1, MAX_PAGE_SIZE)
    got = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "review_list",
                        {"kind": kind, "q": q, "limit": size, "cursor": cursor})
    items = got["items"]
    keep = (trail + [cursor])[-MAX_TRAIL:]
    links = {"next": ctx.url("/review", kind=kind, q=q, size=size, cursor=got["next_cursor"],
                             trail=TRAIL_SEP.join(keep)) if got["next_cursor"] else "",
             "prev": ctx.url("/review", kind=kind, q=q, size=size,
                             cursor=trail[-1] if trail else "",
                             trail=TRAIL_SEP.join(trail[:-1])) if cursor else ""}
    return ctx.render("review.html", items=items, sides=await _sides(ctx, items),
                      total=got["total"], kind=kind, kinds=KINDS, q=q, size=size,
                      number=len(trail) + (2 if cursor else 1), links=links,
                      here=ctx.url("/review", kind=kind, q=q, size=size, cursor=cursor,
                                   trail=TRAIL_SEP.join(trail)),
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
