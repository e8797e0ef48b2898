"""SQL for outcomes and lessons. The caller owns the transaction."""

from __future__ import annotations

import uuid

import asyncpg

from .rows import EmbeddedLessonRow, LessonRow, StrongLessonRow, select_list

LESSON_COLUMNS = select_list(LessonRow)
# Who recorded the outcomes a briefing lesson is drawn from (`l`: the lesson).
_RECORDED_BY = ("ARRAY(SELECT DISTINCT o.writer_principal FROM outcomes o "
                "WHERE o.signature = l.signature ORDER BY 1 LIMIT 5) AS recorded_by")


async def insert_outcome(conn: asyncpg.Connection, ns: str, outcome_id: uuid.UUID, task: str,
                         outcome: str, detail: str, signature: str, used: list[str],
                         principal: str) -> None:
    await conn.execute(
        """INSERT INTO outcomes (namespace, id, task, outcome, detail, signature,
               used_ids, writer_principal) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)""",
        ns, outcome_id, task, outcome, detail, signature, used, principal)


async def signals(conn: asyncpg.Connection, signature: str) -> int:
    value = await conn.fetchval("SELECT count(*) FROM outcomes WHERE signature = $1", signature)
    assert value is not None  # count(*) always yields a row
    return value


async def facts_used(conn: asyncpg.Connection, signature: str) -> list[uuid.UUID]:
    """Live fact ids the outcomes with this signature said they used."""
    return [r["id"] for r in await conn.fetch(
        """SELECT id FROM facts WHERE id::text IN (
               SELECT unnest(used_ids) FROM outcomes WHERE signature = $1)""", signature)]


async def reinforce_merged(conn: asyncpg.Connection, signature: str) -> LessonRow | None:
    """One more signal for the lesson the signature's lesson was merged into."""
    row = await conn.fetchrow(
        f"""UPDATE lessons k SET signals = k.signals + 1,
                  confidence = least(0.99, k.confidence + 0.05),
                  updated_at = clock_timestamp()
           FROM (SELECT merged_into FROM lessons WHERE signature = $1
                 AND merged_into IS NOT NULL ORDER BY retired_at DESC LIMIT 1) m
           WHERE k.id = m.merged_into AND k.retired_at IS NULL
           RETURNING {select_list(LessonRow, "k")}""", signature)
    return None if row is None else LessonRow.of(row)


async def upsert(conn: asyncpg.Connection, ns: str, signature: str, polarity: str, text: str,
                 task: str, confidence: float, signals: int, subjects: list[uuid.UUID],
                 distiller: str, embedding: object) -> LessonRow:
    row = await conn.fetchrow(
        f"""INSERT INTO lessons (namespace, id, signature, polarity, text, task, confidence,
               signals, subject_fact_ids, distilled_by, embedding)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (namespace, signature) WHERE retired_at IS NULL DO UPDATE SET
               confidence = EXCLUDED.confidence, signals = EXCLUDED.signals,
               subject_fact_ids = coalesce((SELECT array_agg(DISTINCT x) FROM unnest(
                   lessons.subject_fact_ids || EXCLUDED.subject_fact_ids) x), '{{}}'),
               updated_at = clock_timestamp()
           RETURNING {LESSON_COLUMNS}""",
        ns, uuid.uuid4(), signature, polarity, text, task, confidence, signals, subjects,
        distiller, embedding)
    assert row is not None  # INSERT ... RETURNING yields the row
    return LessonRow.of(row)


async def strongest(conn: asyncpg.Connection, limit: int) -> list[StrongLessonRow]:
    """The strongest live lessons, each with the principals whose outcomes
    its text is drawn from (`recorded_by`: a reader labels peer text by them)."""
    columns = select_list(StrongLessonRow, "l", {"recorded_by": _RECORDED_BY})
    return StrongLessonRow.all(await conn.fetch(
        f"""SELECT {columns} FROM live_lessons l
           ORDER BY l.signals DESC, l.confidence DESC, l.updated_at DESC, l.id LIMIT $1""",
        limit))


async def count_live(conn: asyncpg.Connection) -> int:
    value = await conn.fetchval("SELECT count(*) FROM live_lessons")
    assert value is not None  # count(*) always yields a row
    return value


async def subjects_changed(conn: asyncpg.Connection, fact_ids: list[uuid.UUID],
                           since: object) -> bool:
    """A fact among these was retired, superseded or contested since `since`."""
    value = await conn.fetchval(
        """SELECT EXISTS (SELECT 1 FROM facts WHERE id = ANY($1::uuid[])
             AND (verdict <> 'active' OR retired_at > $2 OR recorded_at > $2))""",
        fact_ids, since)
    assert value is not None  # EXISTS always yields a row
    return value


async def embedded(conn: asyncpg.Connection, limit: int) -> list[EmbeddedLessonRow]:
    """Live lessons with a vector, oldest first: the only read of the vectors."""
    return EmbeddedLessonRow.all(await conn.fetch(
        f"SELECT {select_list(EmbeddedLessonRow)} FROM live_lessons "
        "WHERE embedding IS NOT NULL ORDER BY created_at LIMIT $1", limit))


async def merge_into(conn: asyncpg.Connection, keep: LessonRow, drop: LessonRow) -> None:
    """`drop` retires into `keep`, which takes its signals and subjects."""
    await conn.execute(
        """UPDATE lessons SET retired_at = clock_timestamp(), merged_into = $2
           WHERE id = $1""", drop.id, keep.id)
    await conn.execute(
        """UPDATE lessons k SET signals = k.signals + $2,
                  confidence = greatest(k.confidence, $3),
                  subject_fact_ids = coalesce((SELECT array_agg(DISTINCT x)
                      FROM unnest(k.subject_fact_ids || $4::uuid[]) x), '{}'),
                  updated_at = clock_timestamp()
           WHERE id = $1""",
        keep.id, drop.signals, drop.confidence, drop.subject_fact_ids)


async def get(conn: asyncpg.Connection, lesson_id: uuid.UUID) -> LessonRow | None:
    row = await conn.fetchrow(f"SELECT {LESSON_COLUMNS} FROM lessons WHERE id = $1", lesson_id)
    return None if row is None else LessonRow.of(row)
