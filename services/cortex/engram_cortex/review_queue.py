"""What waits for a person: open conflicts and proposed root tags, listed
and decided in one place by reviewer principals (docs/architecture.md#reviewer-decisions)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from engram_kit.vocab import REVIEWER_ROLES, ConflictStatus, Role, TagStatus

from . import repo, repo_retraction, repo_tags
from .labels import resolve_call
from .review import ConflictView, Review

KINDS = ("conflict", "root_tag", "contender")
TAG_PREFIX = "tag:"
CONTENDER_PREFIX = "contender:"


@dataclass(frozen=True)
class Item:
    id: str
    kind: str
    summary: str
    created_at: datetime
    conflict: ConflictView | None
    decide_call: str


class ReviewQueue:
    def __init__(self, pool: asyncpg.Pool, review: Review) -> None:
        self._pool = pool
        self._review = review

    async def list(self, ctx: CallerContext, kind: str) -> list[Item]:
        ns = ctx.require_namespace()
        if kind and kind not in KINDS:
            raise InvalidArgument(f"kind is one of {', '.join(KINDS)}", field="kind")
        items: list[Item] = []
        if kind in ("", "conflict"):
            for v in await self._review.list(ctx, ConflictStatus.OPEN, 100):
                summary = (f"{v.fact_a['entity']}.{v.fact_a['attribute']}: "
                           f"{v.fact_a['value']!r} vs {v.fact_b['value']!r} ({v.row['lane']})")
                items.append(Item(str(v.row["id"]), "conflict", summary, v.row["opened_at"], v,
                                  resolve_call(v.row["id"])))
        if kind in ("", "root_tag"):
            async with tenant_tx(self._pool, ns) as conn:
                rows = await repo_tags.proposed(conn)
            for r in rows:
                item_id = f"{TAG_PREFIX}{r['name']}"
                items.append(Item(item_id, "root_tag",
                                  f"new root tag {r['name']!r}: {r['reason']}",
                                  r["created_at"], None,
                                  f"review_decide(item_id='{item_id}', decision='approve' or "
                                  "'reject', reasoning='...')"))
        if kind in ("", "contender"):
            items += await self._contenders(ns)
        return sorted(items, key=lambda i: i.created_at)

    async def _contenders(self, ns: str) -> list[Item]:
        async with tenant_tx(self._pool, ns) as conn:
            rows = await repo_retraction.parked_contenders(conn, 100)
        return [Item(f"{CONTENDER_PREFIX}{r['id']}", "contender",
                     f"{r['entity']}.{r['attribute']}: contender {r['value']!r} (origin "
                     f"{r['origin']}) vs current {r['current_value']!r}", r["recorded_at"],
                     None, f"contender_decide(fact_id='{r['id']}', decision='accept' or "
                     "'discard', reasoning='...')") for r in rows]

    async def decide(self, ctx: CallerContext, item_id: str, decision: str, winner_id: str,
                     reasoning: str) -> tuple[str, str]:
        """(kind, status) after the decision."""
        if ctx.role not in REVIEWER_ROLES:
            raise PermissionDenied("review decisions need the reviewer role; you are "
                                   f"{ctx.role or Role.AGENT}: you may propose, a reviewer "
                                   "decides")
        if item_id.startswith(CONTENDER_PREFIX):
            raise InvalidArgument("a parked contender is decided with contender_decide("
                                  f"fact_id='{item_id.removeprefix(CONTENDER_PREFIX)}', "
                                  "decision='accept' or 'discard', reasoning='...')",
                                  field="item_id")
        if not item_id.startswith(TAG_PREFIX):
            if decision not in ("winner", "both_stand"):
                raise InvalidArgument("a conflict is decided with 'winner' (and winner_id) "
                                      "or 'both_stand'", field="decision")
            view = await self._review.resolve(ctx, item_id, winner_id if decision == "winner"
                                              else "", decision == "both_stand", reasoning)
            return "conflict", view.row["status"]
        if decision not in ("approve", "reject"):
            raise InvalidArgument("a root tag is decided with 'approve' or 'reject'",
                                  field="decision")
        if not reasoning.strip() or len(reasoning) > 2000:
            raise InvalidArgument("reasoning is 1-2000 characters", field="reasoning")
        ns, name = ctx.require_namespace(), item_id.removeprefix(TAG_PREFIX)
        status = TagStatus.APPROVED if decision == "approve" else TagStatus.REJECTED
        async with tenant_tx(self._pool, ns) as conn:
            row = await repo_tags.get(conn, name, for_update=True)
            if row is None:
                raise NotFound(f"no proposed tag {name!r}")
            if row["status"] != TagStatus.PROPOSED:
                raise Conflict(f"tag {name!r} is already {row['status']}")
            await repo_tags.decide(conn, name, status, ctx.principal, reasoning)
            await repo.audit(conn, ns, ctx.principal, f"tag.{decision}", name,
                             {"reasoning": reasoning})
        return "root_tag", status
