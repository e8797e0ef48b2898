"""Near-identical lessons merged (a dream pass asks; one journaled batch).
Of two lessons of the same polarity whose texts mean the same (cosine of
their vectors at least `lesson_merge_cosine`), the stronger stays: a
correction outranks a failure, which outranks a success; then more signals,
then the older. It absorbs the other's signals and subject facts; the other
is retired with `merged_into`. A revert of the batch restores both rows."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import asyncpg
import numpy as np

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument

from . import journal, repo, repo_lessons
from .rows import EmbeddedLessonRow
from .settings import CortexSettings

RANK = {"correction": 3, "failure": 2, "success": 1}
MAX_LESSONS = 5000


@dataclass(frozen=True)
class LessonMerge:
    kept: uuid.UUID
    dropped: uuid.UUID
    similarity: float


def _strength(r: EmbeddedLessonRow) -> tuple:
    outcome = r.signature.split("|")[1] if r.signature.count("|") >= 2 else ""
    return (-RANK.get(outcome, 0), -r.signals, r.created_at)


def _array(value: object) -> object:
    """pgvector's Vector (text codec) or an array already."""
    to_numpy = getattr(value, "to_numpy", None)
    return to_numpy() if to_numpy is not None else value


Pair = tuple[EmbeddedLessonRow, EmbeddedLessonRow, float]


def near_identical(rows: list[EmbeddedLessonRow], threshold: float) -> list[Pair]:
    """Greedy: strongest first, each absorbs the weaker ones close to it."""
    if len(rows) < 2:
        return []
    rows = sorted(rows, key=_strength)
    vectors = np.array([np.asarray(_array(r.embedding), dtype=np.float32) for r in rows])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-12
    sims = vectors @ vectors.T
    gone: set[int] = set()
    pairs = []
    for i, keep in enumerate(rows):
        if i in gone:
            continue
        for j in range(i + 1, len(rows)):
            if j not in gone and rows[j].polarity == keep.polarity and \
                    sims[i, j] >= threshold:
                gone.add(j)
                pairs.append((keep, rows[j], float(sims[i, j])))
    return pairs


class LessonMerger:
    def __init__(self, pool: asyncpg.Pool, settings: CortexSettings) -> None:
        self._pool = pool
        self._s = settings

    async def merge(self, ctx: CallerContext, batch: str) -> list[LessonMerge]:
        ns = ctx.require_namespace()
        if not batch.strip() or len(batch) > 200:
            raise InvalidArgument("batch is 1-200 characters", field="batch")
        async with tenant_tx(self._pool, ns) as conn:
            await repo.advisory_lock(conn, f"lessons/{ns}")
            rows = await repo_lessons.embedded(conn, MAX_LESSONS)
            pairs = near_identical(rows, self._s.lesson_merge_cosine)
            if not pairs:
                return []
            ids = [r.id for keep, drop, _ in pairs for r in (keep, drop)]
            before = await journal.rows(conn, "lessons", ids)
            for keep, drop, _ in pairs:
                await repo_lessons.merge_into(conn, keep, drop)
            await journal.record(conn, ns, batch, before,
                                 await journal.rows(conn, "lessons", ids))
            await repo.audit(conn, ns, ctx.principal, "lesson.merge", batch, {"merged": [
                {"kept": str(k.id), "dropped": str(d.id), "cosine": round(s, 3)}
                for k, d, s in pairs]})
        return [LessonMerge(k.id, d.id, round(s, 4)) for k, d, s in pairs]


