"""Outcomes and lessons. `outcome_record` stores a signal; identical signals
repeated (or one explicit correction) distil a do/avoid lesson here,
deterministically; the dreamer merges near-identical ones (lesson_merge.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg

from engram_kit import idempotency
from engram_kit.audit import content_digest
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.errors import InvalidArgument
from engram_kit.idempotency import Keyed

from . import events, repo, repo_lessons
from .normalise import value_form
from .repo_search import hybrid, ranked_lessons
from .rows import LessonRow
from .search_args import briefing_limit, check_query
from .settings import CortexSettings

OUTCOMES = ("success", "failure", "correction")
# Signals needed before a lesson is drawn, and the confidence it starts at: a
# person's correction outranks a success.
THRESHOLD = {"success": 2, "failure": 2, "correction": 1}
BASE_CONFIDENCE = {"success": 0.6, "failure": 0.7, "correction": 0.9}
DISTILLER = "rules:repeated-identical-signals"


@dataclass(frozen=True)
class Recorded:
    outcome_id: uuid.UUID
    identical: int
    lesson: LessonRow | None


@dataclass(frozen=True, slots=True)
class FlaggedLesson:
    """A lesson a search or the briefing serves, with `re_verify`: a fact it
    rests on was retired, superseded or contested since it was last drawn."""
    row: LessonRow
    re_verify: bool


async def _replayed(conn: asyncpg.Connection, earlier: dict[str, Any]) -> Recorded:
    """The first call's answer; its lesson as it is now."""
    lesson = (await repo_lessons.get(conn, uuid.UUID(earlier["lesson_id"]))
              if earlier["lesson_id"] else None)
    return Recorded(uuid.UUID(earlier["outcome_id"]), earlier["identical"], lesson)


def lesson_text(outcome: str, task: str, detail: str) -> tuple[str, str]:
    what = detail or task
    if outcome == "failure":
        return "avoid", f"Avoid: {what} (when: {task})"
    return "do", f"Do: {what} (when: {task})"


class Lessons:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: CortexSettings,
                 on_outbox_write: Callable[[], None] = lambda: None) -> None:
        self._pool = pool
        self._embedder = embedder
        self._s = settings
        self._on_outbox_write = on_outbox_write

    def _check(self, task: str, outcome: str, detail: str, used: list[str]) -> list[uuid.UUID]:
        if not task.strip() or len(task) > 500:
            raise InvalidArgument("task is 1-500 characters", field="task")
        if outcome not in OUTCOMES:
            raise InvalidArgument(f"outcome is one of {', '.join(OUTCOMES)}", field="outcome")
        if len(detail) > 2000:
            raise InvalidArgument("detail is at most 2000 characters", field="detail")
        if outcome == "correction" and not detail.strip():
            raise InvalidArgument("a correction needs detail: what should be done instead",
                                  field="detail")
        if len(used) > 50:
            raise InvalidArgument("at most 50 used_ids", field="used_ids")
        ids = []
        for raw in used:
            try:
                ids.append(uuid.UUID(raw))
            except ValueError:
                raise InvalidArgument(f"used_ids holds {raw[:40]!r}, not an id",
                                      field="used_ids") from None
        return ids

    async def record(self, ctx: CallerContext, task: str, outcome: str, detail: str,
                     used: list[str]) -> Recorded:
        ns = ctx.require_namespace()
        ids = self._check(task, outcome, detail, used)
        signature = f"{value_form(task)}|{outcome}|{value_form(detail)}"
        polarity, text = lesson_text(outcome, task.strip(), detail.strip())
        vectors = await self._embedder.embed_many([text], ctx)
        keyed = Keyed.of("RecordOutcome", ctx.idempotency_key, task, outcome, detail, used)
        async with tenant_tx(self._pool, ns) as conn:
            if (earlier := await idempotency.replay(conn, keyed)) is not None:
                return await _replayed(conn, earlier)
            await repo.advisory_lock(conn, f"lesson/{ns}/{signature}")
            outcome_id = uuid.uuid4()
            await repo_lessons.insert_outcome(conn, ns, outcome_id, task, outcome, detail,
                                              signature, [str(i) for i in ids], ctx.principal)
            await repo.audit(conn, ns, ctx.principal, "outcome.record", str(outcome_id),
                             {"outcome": outcome, "task_hmac": content_digest(task)})
            identical = await repo_lessons.signals(conn, signature)
            lesson = None
            if identical >= THRESHOLD[outcome]:
                facts = await repo_lessons.facts_used(conn, signature)
                confidence = min(0.99, BASE_CONFIDENCE[outcome]
                                 + 0.05 * (identical - THRESHOLD[outcome]))
                # A signal for a lesson a dream pass merged into another
                # strengthens that one (instead of drawing the merged lesson again).
                lesson = await repo_lessons.reinforce_merged(
                    conn, signature) or await repo_lessons.upsert(
                    conn, ns, signature, polarity, text, task, confidence, identical, facts,
                    DISTILLER, vectors[0] if vectors else None)
                await repo.audit(conn, ns, ctx.principal, "lesson.distil", str(lesson.id),
                                 {"signals": identical, "distilled_by": DISTILLER})
            await events.outcome_recorded(conn, ctx, outcome_id, outcome,
                                          lesson.id if lesson else None)
            await idempotency.remember(conn, ns, keyed, {
                "outcome_id": str(outcome_id), "identical": identical,
                "lesson_id": str(lesson.id) if lesson else ""})
        self._on_outbox_write()
        return Recorded(outcome_id, identical, lesson)

    async def search(self, ctx: CallerContext, query: str,
                     top_k: int) -> list[FlaggedLesson]:
        """Lessons near the query; `re_verify` when a fact it rests on was
        retired, superseded or contested since the lesson was last drawn."""
        ns = ctx.require_namespace()
        query, top_k = check_query(query, top_k, self._s)
        vector = await self._embedder.embed_one(query, ctx, query=True)
        async with tenant_tx(self._pool, ns) as conn:
            rows = await ranked_lessons(conn, query, vector, top_k, hybrid(self._s))
            return await _flagged(conn, rows)

    async def briefing(self, ctx: CallerContext,
                       limit: int) -> tuple[list[FlaggedLesson], int]:
        """The lessons with the most signals behind them, for the session-start
        briefing, and how many live lessons there are."""
        ns = ctx.require_namespace()
        limit = briefing_limit(limit, 5, "lessons")
        async with tenant_tx(self._pool, ns) as conn:
            rows = await repo_lessons.strongest(conn, limit)
            total = await repo_lessons.count_live(conn)
            return await _flagged(conn, rows), total


async def _flagged(conn: asyncpg.Connection, rows: Sequence[LessonRow]) -> list[FlaggedLesson]:
    """Each lesson with `re_verify`: a fact it rests on was retired,
    superseded or contested since the lesson was last drawn."""
    flags = {r.id: await repo_lessons.subjects_changed(conn, r.subject_fact_ids, r.updated_at)
             for r in rows}
    return [FlaggedLesson(r, flags[r.id]) for r in rows]
