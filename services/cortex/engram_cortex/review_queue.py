"""What waits for a person: open conflicts and proposed root tags, listed
and decided in one place by reviewer principals (docs/architecture.md#reviewer-decisions)."""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from engram_kit.vocab import REVIEWER_ROLES, Role, TagStatus

from . import repo, repo_review, repo_tags
from .labels import resolve_call
from .review import ConflictView, Review
from .rows import ContenderRow, ReviewKeyRow, TagRow

KINDS = ("conflict", "root_tag", "contender")
DEFAULT_PAGE, MAX_PAGE, MAX_QUERY = 100, 100, 200
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
    contender: ContenderRow | None = None


@dataclass(frozen=True)
class Page:
    items: list[Item]
    next_cursor: str
    total: int


def encode_cursor(created_at: datetime, key: str) -> str:
    raw = f"{created_at.isoformat()}|{key}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str] | None:
    """The position a next_cursor stands for; anything else is refused."""
    if not cursor:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, key = raw.split("|", 1)
        at = datetime.fromisoformat(stamp)
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidArgument("cursor is not a next_cursor this list gave out; start "
                              "again without one", field="cursor") from e
    if len(cursor) > 200 or at.tzinfo is None or not key:
        raise InvalidArgument("cursor is not a next_cursor this list gave out; start "
                              "again without one", field="cursor")
    return at, key


def _conflict_item(v: ConflictView) -> Item:
    summary = (f"{v.fact_a.entity}.{v.fact_a.attribute}: "
               f"{v.fact_a.value!r} vs {v.fact_b.value!r} ({v.row.lane})")
    return Item(str(v.row.id), "conflict", summary, v.row.opened_at, v,
                resolve_call(v.row.id))


def _tag_item(r: TagRow) -> Item:
    item_id = f"{TAG_PREFIX}{r.name}"
    return Item(item_id, "root_tag", f"new root tag {r.name!r}: {r.reason}",
                r.created_at, None, f"review_decide(item_id='{item_id}', decision="
                "'approve' or 'reject', reasoning='...')")


def _contender_item(r: ContenderRow) -> Item:
    return Item(f"{CONTENDER_PREFIX}{r.id}", "contender",
                f"{r.entity}.{r.attribute}: contender {r.value!r} (origin "
                f"{r.origin}) vs current {r.current_value!r}", r.recorded_at,
                None, f"contender_decide(fact_id='{r.id}', decision='accept' or "
                "'discard', reasoning='...')", r)


class ReviewQueue:
    def __init__(self, pool: asyncpg.Pool, review: Review) -> None:
        self._pool = pool
        self._review = review

    async def list(self, ctx: CallerContext, kind: str, cursor: str = "", limit: int = 0,
                   q: str = "") -> Page:
        """One page of open items, oldest first, keyset-paged on (created_at, key)."""
        ns = ctx.require_namespace()
        if kind and kind not in KINDS:
            raise InvalidArgument(f"kind is one of {', '.join(KINDS)}", field="kind")
        if not 0 <= limit <= MAX_PAGE:
            raise InvalidArgument(f"limit is 1-{MAX_PAGE} (0: {DEFAULT_PAGE})", field="limit")
        if len(q) > MAX_QUERY:
            raise InvalidArgument(f"q is at most {MAX_QUERY} characters", field="q")
        after, size = decode_cursor(cursor), limit or DEFAULT_PAGE
        pattern = repo_review.like_pattern(q.strip())
        async with tenant_tx(self._pool, ns) as conn:
            rows = await repo_review.page(conn, kind, pattern, after, size + 1)
            count = await repo_review.total(conn, kind, pattern)
            shown = rows[:size]
            items = await self._items(conn, shown)
        more = len(rows) > size
        return Page(items, encode_cursor(shown[-1].created_at, shown[-1].key)
                    if more else "", count)

    async def _items(self, conn: asyncpg.Connection, rows: list[ReviewKeyRow]) -> list[Item]:
        """Each listed key in full, in the listing's order."""
        keys = [r.key for r in rows]
        by_key: dict[str, Item] = {}
        conflict_ids = [uuid.UUID(r.key) for r in rows if r.kind == "conflict"]
        if conflict_ids:
            views = await self._review.views(conn, await repo_review.conflicts_by_id(
                conn, conflict_ids))
            by_key.update({str(v.row.id): _conflict_item(v) for v in views})
        names = [k.removeprefix(TAG_PREFIX) for k in keys if k.startswith(TAG_PREFIX)]
        if names:
            by_key.update({f"{TAG_PREFIX}{r.name}": _tag_item(r)
                           for r in await repo_review.tags_by_name(conn, names)})
        parked = [uuid.UUID(k.removeprefix(CONTENDER_PREFIX)) for k in keys
                  if k.startswith(CONTENDER_PREFIX)]
        if parked:
            by_key.update({f"{CONTENDER_PREFIX}{r.id}": _contender_item(r)
                           for r in await repo_review.contenders_by_id(conn, parked)})
        return [by_key[k] for k in keys if k in by_key]

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
            return "conflict", view.row.status
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
            if row.status != TagStatus.PROPOSED:
                raise Conflict(f"tag {name!r} is already {row.status}")
            await repo_tags.decide(conn, name, status, ctx.principal, reasoning)
            await repo.audit(conn, ns, ctx.principal, f"tag.{decision}", name,
                             {"reasoning": reasoning})
        return "root_tag", status
