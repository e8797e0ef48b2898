"""SQL for decay, rescue and use marks. The caller owns the transaction."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from engram_kit.rows import select_list

from .rows import RescueRow

# The one definition of "unused since": the newest of written, used,
# reinforced and rescued.
LAST_TOUCHED = "greatest(created_at, last_used_at, last_reinforced_at, rescued_at)"
# rescue's RETURNING: the status before (the locked old row) and the new stamp
_RESCUE_COLUMNS = select_list(RescueRow, {"was": "old.status AS was",
                                          "rescued_at": "e.rescued_at"})


async def archive_stale(conn: asyncpg.Connection, unused_for_s: float, limit: int,
                        batch: str) -> list[UUID]:
    """Oldest-unused first; a confirmed or rescued entry is never archived.
    SKIP LOCKED: an entry being written right now is simply not this pass's."""
    rows = await conn.fetch(
        f"""WITH stale AS (
                SELECT id FROM live_entries
                WHERE rescued_at IS NULL AND confirmations = 0
                  AND {LAST_TOUCHED} < now() - make_interval(secs => $1)
                ORDER BY {LAST_TOUCHED}, id LIMIT $2
                FOR UPDATE SKIP LOCKED)
            UPDATE entries e SET status = 'archived', retired_at = now(), archived_by = $3
            FROM stale WHERE e.id = stale.id RETURNING e.id""",
        unused_for_s, limit, batch)
    return [r["id"] for r in rows]


async def unarchive(conn: asyncpg.Connection, batch: str) -> list[UUID]:
    rows = await conn.fetch(
        """UPDATE entries SET status = 'live', retired_at = NULL
           WHERE archived_by = $1 AND status = 'archived' RETURNING id""", batch)
    return [r["id"] for r in rows]


async def rescue(conn: asyncpg.Connection, entry_id: UUID, principal: str,
                 reason: str) -> RescueRow | None:
    """Returns the pre-rescue status and the stamp, or None when the entry is
    not live or archived (superseded, forgotten, absent)."""
    row = await conn.fetchrow(
        f"""UPDATE entries e SET status = 'live', retired_at = NULL, rescued_at = now(),
                   rescued_by = $2, rescue_reason = $3
            FROM (SELECT id, status FROM entries WHERE id = $1 FOR UPDATE) old
            WHERE e.id = old.id AND old.status IN ('live', 'archived')
            RETURNING {_RESCUE_COLUMNS}""",
        entry_id, principal, reason)
    return RescueRow.of(row) if row is not None else None


async def mark_used(conn: asyncpg.Connection, ids: list[UUID]) -> None:
    """Sorted ids: concurrent flushes lock rows in one order (no deadlock)."""
    await conn.execute(
        "UPDATE entries SET last_used_at = now() WHERE id = ANY($1::uuid[]) "
        "AND status = 'live'", sorted(ids))
