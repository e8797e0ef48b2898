"""SQL for the facts a session was served and what changed about them. The
caller owns the transaction (tenant_tx)."""

from __future__ import annotations

import uuid
from datetime import datetime

import asyncpg

from .rows import SessionChangeRow, select_list

# The replaced or retired facts: no conflict.
_SUPERSEDED_COLUMNS = select_list(SessionChangeRow, "f", {
    "new_value": "coalesce(n.value, '') AS new_value",
    "by": "coalesce(n.writer_principal, '') AS by",
    "change": "CASE WHEN n.id IS NULL THEN 'retired' ELSE 'superseded' END AS change",
    "conflict_id": "NULL::uuid AS conflict_id"})
# The contested facts: the other side's value and writer, and the conflict.
_CONTESTED_COLUMNS = select_list(SessionChangeRow, "f", {
    "new_value": "o.value AS new_value", "by": "o.writer_principal AS by",
    "change": "'contested' AS change", "conflict_id": "c.id AS conflict_id"})


async def record(conn: asyncpg.Connection, namespace: str, session_id: str,
                 fact_ids: list[uuid.UUID], keep_per_session: int, keep_s: float) -> None:
    """Upsert the reads, then trim the session to its newest reads and the
    namespace to reads younger than keep_s."""
    await conn.execute(
        """INSERT INTO session_reads (namespace, session_id, fact_id)
           SELECT $1, $2, unnest($3::uuid[])
           ON CONFLICT (namespace, session_id, fact_id)
           DO UPDATE SET read_at = clock_timestamp()""",
        namespace, session_id, fact_ids)
    await conn.execute(
        """DELETE FROM session_reads WHERE session_id = $1 AND fact_id IN (
               SELECT fact_id FROM session_reads WHERE session_id = $1
               ORDER BY read_at DESC OFFSET $2)""", session_id, keep_per_session)
    await conn.execute(
        "DELETE FROM session_reads WHERE read_at < now() - make_interval(secs => $1)",
        keep_s)


async def now(conn: asyncpg.Connection) -> datetime:
    value = await conn.fetchval("SELECT clock_timestamp()")
    assert value is not None  # a clock always answers
    return value


async def superseded(conn: asyncpg.Connection, session_id: str,
                     since: datetime) -> list[SessionChangeRow]:
    """Facts the session read that another session replaced or retired
    since `since`."""
    return SessionChangeRow.all(await conn.fetch(
        f"""SELECT {_SUPERSEDED_COLUMNS}
           FROM session_reads r JOIN facts f ON f.id = r.fact_id
           LEFT JOIN facts n ON n.id = f.superseded_by
           WHERE r.session_id = $1
             AND ((n.id IS NOT NULL AND n.recorded_at > $2 AND n.writer_session <> $1)
                  OR (n.id IS NULL AND f.retired_at > $2))
           ORDER BY f.entity, f.attribute LIMIT 20""", session_id, since))


async def contested(conn: asyncpg.Connection, session_id: str,
                    since: datetime) -> list[SessionChangeRow]:
    """Facts the session read that a conflict opened since `since` contests
    (the other side written by another session)."""
    return SessionChangeRow.all(await conn.fetch(
        f"""SELECT {_CONTESTED_COLUMNS}
           FROM session_reads r
           JOIN conflicts c ON c.status = 'open' AND c.opened_at > $2
                           AND (c.fact_a = r.fact_id OR c.fact_b = r.fact_id)
           JOIN facts f ON f.id = r.fact_id
           JOIN facts o ON o.id = CASE WHEN c.fact_a = r.fact_id THEN c.fact_b
                                       ELSE c.fact_a END
           WHERE r.session_id = $1 AND o.writer_session <> $1
           ORDER BY c.opened_at LIMIT 20""", session_id, since))


async def conflicts_opened(conn: asyncpg.Connection, since: datetime) -> int:
    n = await conn.fetchval(
        "SELECT count(*) FROM conflicts WHERE status = 'open' AND opened_at > $1", since)
    return int(n or 0)
