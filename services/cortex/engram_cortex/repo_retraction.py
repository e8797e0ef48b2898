"""SQL for retracting, restoring and erasing world facts and lessons, deciding
parked contenders, and finding what one writer wrote. The caller owns the
transaction."""

from __future__ import annotations

import uuid
from datetime import datetime

import asyncpg

from .repo import FACT_COLUMNS
from .repo_lessons import LESSON_COLUMNS
from .repo_world import WORLD_COLUMNS
from .rows import ErasedRow, FactRow, LessonRow, WorldFactRow, select_list


async def retract_world(conn: asyncpg.Connection, entity: str, attribute: str, reason: str,
                        by: str) -> list[WorldFactRow]:
    return WorldFactRow.all(await conn.fetch(
        f"""UPDATE world_facts SET retired_at = clock_timestamp(), retract_reason = $3,
                  retracted_by = $4
           WHERE entity = $1 AND attribute = $2 AND retired_at IS NULL
           RETURNING {WORLD_COLUMNS}""",
        entity, attribute, reason, by))


async def restorable_world(conn: asyncpg.Connection, entity: str,
                           attribute: str) -> list[uuid.UUID]:
    """The slot's last retraction: the ids of the rows retracted (not
    superseded) together, locked."""
    return [r["id"] for r in await conn.fetch(
        """SELECT id FROM world_facts WHERE entity = $1 AND attribute = $2
             AND retract_reason IS NOT NULL AND superseded_by IS NULL
             AND retired_at = (SELECT max(retired_at) FROM world_facts
                               WHERE entity = $1 AND attribute = $2
                                 AND retract_reason IS NOT NULL AND superseded_by IS NULL)
           FOR UPDATE""", entity, attribute)]


async def restore_world(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> list[WorldFactRow]:
    return WorldFactRow.all(await conn.fetch(
        f"""UPDATE world_facts SET retired_at = NULL, retract_reason = NULL, retracted_by = NULL
           WHERE id = ANY($1::uuid[]) RETURNING {WORLD_COLUMNS}""", ids))


async def erase_world(conn: asyncpg.Connection, entity: str,
                      attribute: str) -> list[ErasedRow]:
    """Every row of the slot, live and history: the words go for good."""
    return ErasedRow.all(await conn.fetch(
        f"DELETE FROM world_facts WHERE entity = $1 AND attribute = $2 "
        f"RETURNING {select_list(ErasedRow)}", entity, attribute))


async def lock_lesson(conn: asyncpg.Connection, lesson_id: uuid.UUID) -> LessonRow | None:
    row = await conn.fetchrow(f"SELECT {LESSON_COLUMNS} FROM lessons WHERE id = $1 FOR UPDATE",
                              lesson_id)
    return None if row is None else LessonRow.of(row)


async def live_signature(conn: asyncpg.Connection, signature: str) -> uuid.UUID | None:
    return await conn.fetchval("SELECT id FROM live_lessons WHERE signature = $1", signature)


async def retire_lesson(conn: asyncpg.Connection, lesson_id: uuid.UUID, reason: str | None,
                        by: str | None) -> LessonRow:
    """reason None restores: the lesson is live again."""
    row = await conn.fetchrow(
        f"""UPDATE lessons SET retired_at = CASE WHEN $2::text IS NULL THEN NULL
                                               ELSE clock_timestamp() END,
                  retire_reason = $2, retired_by = $3, updated_at = clock_timestamp()
           WHERE id = $1 RETURNING {LESSON_COLUMNS}""", lesson_id, reason, by)
    assert row is not None  # callers pass a lesson they locked
    return LessonRow.of(row)


async def erase_lesson(conn: asyncpg.Connection, row: LessonRow) -> int:
    """The lesson, every lesson and outcome of its signature (the words it was
    drawn from), lessons merged into it, and their journal images."""
    found = await conn.fetch(
        "SELECT id, signature FROM lessons WHERE signature = $1 OR merged_into = $2",
        row.signature, row.id)
    ids, signatures = [r["id"] for r in found], list({r["signature"] for r in found})
    await conn.execute("DELETE FROM journal WHERE tbl = 'lessons' AND row_key->>0 = "
                       "ANY($1::text[])", [str(i) for i in ids])
    await conn.execute("DELETE FROM lessons WHERE id = ANY($1::uuid[])", ids)
    done = await conn.execute("DELETE FROM outcomes WHERE signature = ANY($1::text[])",
                              signatures)
    return int(done.split()[-1])


async def facts_in_slot(conn: asyncpg.Connection, entity: str, attribute: str,
                        norm_value: str | None) -> list[uuid.UUID]:
    """Every fact of the slot (all verdicts, history too), or of one value."""
    return [r["id"] for r in await conn.fetch(
        """SELECT id FROM facts WHERE entity = $1 AND attribute = $2
             AND ($3::text IS NULL OR norm_value = $3) FOR UPDATE""",
        entity, attribute, norm_value)]


async def drop_slot_tombstones(conn: asyncpg.Connection, entity: str, attribute: str,
                               norm_value: str | None) -> None:
    await conn.execute(
        """DELETE FROM tombstones WHERE entity = $1 AND attribute = $2
             AND ($3::text IS NULL OR norm_value = $3)""", entity, attribute, norm_value)


async def by_writer(conn: asyncpg.Connection, principal: str, since: datetime | None,
                    until: datetime | None, limit: int) -> list[FactRow]:
    """Live facts one principal wrote in [since, until), oldest first."""
    return FactRow.all(await conn.fetch(
        f"""SELECT {FACT_COLUMNS} FROM facts WHERE writer_principal = $1 AND retired_at IS NULL
             AND verdict IN ('active', 'contested', 'parked')
             AND ($2::timestamptz IS NULL OR recorded_at >= $2)
             AND ($3::timestamptz IS NULL OR recorded_at < $3)
           ORDER BY recorded_at, id LIMIT $4""", principal, since, until, limit))


async def values_of(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> list[str]:
    """The facts' values (for the audit's digests)."""
    return [r["value"] for r in await conn.fetch(
        "SELECT value FROM facts WHERE id = ANY($1::uuid[])", ids)]


async def live_world_count(conn: asyncpg.Connection, entity: str, attribute: str) -> int:
    value = await conn.fetchval("SELECT count(*) FROM live_world_facts WHERE entity = $1 "
                                "AND attribute = $2", entity, attribute)
    return int(value or 0)
