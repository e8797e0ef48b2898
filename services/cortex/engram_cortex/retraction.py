"""World facts retracted and lessons retired by hand: reversible (the rows
stay as history, a restore brings them back), or with `erase` gone for good
(a world fact or lesson that holds a secret). Audit rows keep keyed digests
of values, never the words."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg

from engram_kit.audit import content_digest
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound

from . import repo
from . import repo_retraction as rr
from .normalise import attribute_name, entity_name
from .rows import ErasedRow, LessonRow, WorldFactRow
from .settings import CortexSettings


def check_reason(reason: str, s: CortexSettings) -> str:
    reason = reason.strip()
    if not reason or len(reason) > s.reason_max_chars:
        raise InvalidArgument(f"reason is 1-{s.reason_max_chars} characters", field="reason")
    return reason


def parse_id(value: str, field_name: str) -> uuid.UUID:
    try:
        return uuid.UUID(value.strip())
    except ValueError:
        raise InvalidArgument(f"{field_name} must be an id (a UUID), got {value[:40]!r}",
                              field=field_name) from None


class Retraction:
    def __init__(self, pool: asyncpg.Pool, settings: CortexSettings) -> None:
        self._pool = pool
        self._s = settings

    async def world_retract(self, ctx: CallerContext, entity: str, attribute: str,
                            reason: str, erase: bool) -> tuple[list[WorldFactRow], int]:
        """The rows retracted, or (erase) none and how many were deleted."""
        ns, reason = ctx.require_namespace(), check_reason(reason, self._s)
        entity, attribute = entity_name(entity), attribute_name(attribute)
        async with tenant_tx(self._pool, ns) as conn:
            await repo.lock_slot(conn, ns, f"world:{entity}", attribute)
            retracted: list[WorldFactRow] = []
            if erase:
                gone: Sequence[ErasedRow | WorldFactRow] = await rr.erase_world(
                    conn, entity, attribute)
                action = "world.erase"
            else:
                gone = retracted = await rr.retract_world(conn, entity, attribute, reason,
                                                          ctx.principal)
                action = "world.retract"
            if not gone:
                raise NotFound(f"no {'' if erase else 'live '}world fact in "
                               f"{entity}.{attribute}", field="attribute")
            await repo.audit(conn, ns, ctx.principal, action, f"{entity}.{attribute}",
                             {"reason": reason, "ids": [str(r.id) for r in gone],
                              "value_hmacs": [content_digest(r.value) for r in gone]})
            return ([], len(gone)) if erase else (retracted, 0)

    async def world_restore(self, ctx: CallerContext, entity: str, attribute: str,
                            reason: str) -> list[WorldFactRow]:
        ns, reason = ctx.require_namespace(), check_reason(reason, self._s)
        entity, attribute = entity_name(entity), attribute_name(attribute)
        async with tenant_tx(self._pool, ns) as conn:
            await repo.lock_slot(conn, ns, f"world:{entity}", attribute)
            if await rr.live_world_count(conn, entity, attribute):
                raise Conflict(f"{entity}.{attribute} has a live world fact; a restore "
                               "would stand beside it: retract it first")
            ids = await rr.restorable_world(conn, entity, attribute)
            if not ids:
                raise NotFound(f"no retracted world fact in {entity}.{attribute}",
                               field="attribute")
            rows = await rr.restore_world(conn, ids)
            await repo.audit(conn, ns, ctx.principal, "world.restore", f"{entity}.{attribute}",
                             {"reason": reason, "ids": [str(r.id) for r in rows]})
            return rows

    async def lesson_retire(self, ctx: CallerContext, lesson_id: str, reason: str,
                            erase: bool) -> LessonRow | None:
        ns, reason = ctx.require_namespace(), check_reason(reason, self._s)
        lid = parse_id(lesson_id, "lesson_id")
        async with tenant_tx(self._pool, ns) as conn:
            row = await self._lesson(conn, lid)
            if erase:
                outcomes = await rr.erase_lesson(conn, row)
                await repo.audit(conn, ns, ctx.principal, "lesson.erase", str(lid),
                                 {"reason": reason, "outcomes": outcomes,
                                  "text_hmac": content_digest(row.text)})
                return None
            if row.retired_at is not None:
                raise Conflict(f"lesson {lid} is already retired"
                               + (f" (merged into {row.merged_into})"
                                  if row.merged_into else ""))
            done = await rr.retire_lesson(conn, lid, reason, ctx.principal)
            await repo.audit(conn, ns, ctx.principal, "lesson.retire", str(lid),
                             {"reason": reason})
            return done

    async def lesson_restore(self, ctx: CallerContext, lesson_id: str,
                             reason: str) -> LessonRow:
        ns, reason = ctx.require_namespace(), check_reason(reason, self._s)
        lid = parse_id(lesson_id, "lesson_id")
        async with tenant_tx(self._pool, ns) as conn:
            row = await self._lesson(conn, lid)
            if row.retired_at is None:
                raise Conflict(f"lesson {lid} is live; nothing to restore")
            if row.retire_reason is None:
                raise Conflict(f"lesson {lid} was merged into {row.merged_into}, not "
                               "retired by hand; that lesson carries it")
            if (live := await rr.live_signature(conn, row.signature)) is not None:
                raise Conflict(f"lesson {live} says the same and is live; retire it first")
            done = await rr.retire_lesson(conn, lid, None, None)
            await repo.audit(conn, ns, ctx.principal, "lesson.restore", str(lid),
                             {"reason": reason})
            return done

    @staticmethod
    async def _lesson(conn: asyncpg.Connection, lid: uuid.UUID) -> LessonRow:
        row = await rr.lock_lesson(conn, lid)
        if row is None:
            raise NotFound(f"no lesson {lid} in this namespace", field="lesson_id")
        return row
