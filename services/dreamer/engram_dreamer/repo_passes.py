"""SQL for pending entries, runs and their facts. The caller owns the
transaction (a tenant transaction)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import asyncpg

from engram_kit import locks
from engram_kit.db import fetchrow_one
from engram_kit.rows import select_list

from .rows import OpenMark, PendingStats, PendingWork, RunRow

RUN_COLUMNS = select_list(RunRow)


async def add_pending(conn: asyncpg.Connection, ns: str, entry_id: uuid.UUID,
                      event_id: uuid.UUID) -> None:
    await conn.execute(
        """INSERT INTO pending_entries (namespace, entry_id, event_id) VALUES ($1, $2, $3)
           ON CONFLICT DO NOTHING""", ns, entry_id, event_id)


async def mark_forgotten(conn: asyncpg.Connection, entry_ids: list[uuid.UUID]) -> None:
    await conn.execute("UPDATE pending_entries SET status = 'forgotten' "
                       "WHERE entry_id = ANY($1::uuid[]) AND status = 'pending'", entry_ids)


async def pending(conn: asyncpg.Connection, limit: int) -> list[uuid.UUID]:
    rows = await conn.fetch("SELECT entry_id FROM pending_entries WHERE status = 'pending' "
                            "ORDER BY stored_at LIMIT $1", limit)
    return [r["entry_id"] for r in rows]


async def pending_stats(conn: asyncpg.Connection) -> PendingStats:
    return PendingStats.of(await fetchrow_one(
        conn,
        """SELECT count(*) AS n, max(stored_at) AS newest,
                  (SELECT count(*) FROM marks WHERE status = 'pending') AS marks
           FROM pending_entries WHERE status = 'pending'"""))


async def start_run(conn: asyncpg.Connection, ns: str, run_id: uuid.UUID, trigger: str,
                    extractor: str, model: str) -> None:
    await conn.execute(
        """INSERT INTO runs (namespace, id, trigger, extractor, model)
           VALUES ($1, $2, $3, $4, $5)""", ns, run_id, trigger, extractor, model)


async def stale_runs(conn: asyncpg.Connection) -> list[uuid.UUID]:
    rows = await conn.fetch("SELECT id FROM runs WHERE status = 'running'")
    return [r["id"] for r in rows]


async def finish_run(conn: asyncpg.Connection, run_id: uuid.UUID, status: str,
                     fields: dict[str, Any]) -> RunRow:
    return RunRow.of(await fetchrow_one(
        conn,
        f"""UPDATE runs SET status = $2, finished_at = clock_timestamp(),
                  entries = $3, candidates = $4, facts_written = $5, dropped_unanchored = $6,
                  quarantined = $7, errors = $8, counts = $9::jsonb, error_detail = $10,
                  inputs = $11, proposals = $12
           WHERE id = $1 RETURNING {RUN_COLUMNS}""",
        run_id, status, fields.get("entries", 0), fields.get("candidates", 0),
        fields.get("facts_written", 0), fields.get("dropped_unanchored", 0),
        fields.get("quarantined", 0), fields.get("errors", 0),
        json.dumps(fields.get("counts", {})), fields.get("error_detail", "")[:2000],
        fields.get("inputs", []), fields.get("proposals", 0)))


async def record_fact(conn: asyncpg.Connection, ns: str, run_id: uuid.UUID,
                      fact_id: uuid.UUID, entry_id: uuid.UUID, action: str, kind: str) -> None:
    await conn.execute(
        """INSERT INTO run_facts (namespace, run_id, fact_id, entry_id, action, kind)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING""",
        ns, run_id, fact_id, entry_id, action, kind)


async def settle_entries(conn: asyncpg.Connection, run_id: uuid.UUID,
                         done: list[uuid.UUID], quarantined: dict[uuid.UUID, str],
                         ns: str) -> None:
    await conn.execute(
        """UPDATE pending_entries SET status = 'consolidated', run_id = $1
           WHERE entry_id = ANY($2::uuid[]) AND status = 'pending'""", run_id, done)
    for entry_id, reason in quarantined.items():
        await conn.execute(
            """UPDATE pending_entries SET status = 'quarantined', run_id = $1
               WHERE entry_id = $2""", run_id, entry_id)
        await conn.execute(
            """INSERT INTO quarantine (namespace, entry_id, run_id, reason)
               VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING""", ns, entry_id, run_id, reason)


async def runs(conn: asyncpg.Connection, limit: int) -> list[RunRow]:
    return RunRow.all(await conn.fetch(
        f"SELECT {RUN_COLUMNS} FROM runs ORDER BY started_at DESC LIMIT $1", limit))


async def run(conn: asyncpg.Connection, run_id: uuid.UUID) -> RunRow | None:
    row = await conn.fetchrow(f"SELECT {RUN_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE",
                              run_id)
    return RunRow.of(row) if row is not None else None


async def reopen_entries(conn: asyncpg.Connection, run_id: uuid.UUID) -> int:
    """Back to their pre-pass state: pending."""
    done = await conn.execute("UPDATE pending_entries SET status = 'pending', run_id = NULL "
                              "WHERE run_id = $1", run_id)
    await conn.execute("DELETE FROM quarantine WHERE run_id = $1", run_id)
    return int(done.split()[-1])


async def add_mark(conn: asyncpg.Connection, ns: str, kind: str, key: str,
                   event_id: uuid.UUID) -> None:
    """Work for the next pass; marking again what is already pending is a no-op."""
    await conn.execute(
        """INSERT INTO marks (namespace, kind, key, event_id) VALUES ($1, $2, $3, $4)
           ON CONFLICT (namespace, kind, key) DO UPDATE SET status = 'pending',
               event_id = EXCLUDED.event_id, at = clock_timestamp(), run_id = NULL
           WHERE marks.status = 'done'""", ns, kind, key, event_id)


async def open_marks(conn: asyncpg.Connection, limit: int) -> list[OpenMark]:
    return OpenMark.all(await conn.fetch(
        f"SELECT {select_list(OpenMark)} FROM marks WHERE status = 'pending' "
        "ORDER BY at LIMIT $1", limit))


async def settle_marks(conn: asyncpg.Connection, run_id: uuid.UUID,
                       marks: list[tuple[str, str]]) -> None:
    for kind, key in marks:
        await conn.execute("UPDATE marks SET status = 'done', run_id = $1 "
                           "WHERE kind = $2 AND key = $3 AND status = 'pending'",
                           run_id, kind, key)


async def reopen_marks(conn: asyncpg.Connection, run_id: uuid.UUID) -> None:
    await conn.execute("UPDATE marks SET status = 'pending', run_id = NULL "
                       "WHERE run_id = $1", run_id)


async def forget_proposal_sources(conn: asyncpg.Connection, entry_ids: list[str]) -> None:
    """Forgotten entries: open proposals quoting them (or merging them) are
    withdrawn; a decided
    one keeps its signature (a rejection still holds) but not the quote."""
    await conn.execute("DELETE FROM proposals WHERE status = 'open' "
                       "AND (source_ref = ANY($1::text[]) OR entry_ids && $1::text[])",
                       entry_ids)
    await conn.execute("UPDATE proposals SET evidence_quote = '' "
                       "WHERE source_ref = ANY($1::text[])", entry_ids)


async def mark_rolled_back(conn: asyncpg.Connection, run_id: uuid.UUID) -> RunRow:
    return RunRow.of(await fetchrow_one(
        conn, f"UPDATE runs SET status = 'rolled_back' WHERE id = $1 RETURNING {RUN_COLUMNS}",
        run_id))


async def try_session_lock(conn: asyncpg.Connection, key: str) -> bool:
    """A session-level lock (a pass spans several transactions)."""
    return await locks.try_session_lock(conn, key)


async def session_unlock(conn: asyncpg.Connection, key: str) -> None:
    await locks.session_unlock(conn, key)


async def pending_work(conn: asyncpg.Connection) -> list[PendingWork]:
    """Per namespace: how much waits (entries and marks), oldest and newest."""
    return PendingWork.all(await conn.fetch(
        """SELECT namespace, count(*) AS n, min(at) AS oldest, max(at) AS newest
           FROM (SELECT namespace, stored_at AS at FROM pending_entries
                 WHERE status = 'pending'
                 UNION ALL
                 SELECT namespace, at FROM marks WHERE status = 'pending') work
           GROUP BY namespace"""))


async def last_started(conn: asyncpg.Connection) -> Any:
    return await conn.fetchval("SELECT max(started_at) FROM runs")


async def namespaces(conn: asyncpg.Connection) -> list[str]:
    """Every namespace the dreamer has seen an entry of (a loose index scan:
    one probe per namespace)."""
    return [r["n"] for r in await conn.fetch(
        """WITH RECURSIVE ns(n) AS (
               SELECT min(namespace) FROM pending_entries
               UNION ALL
               SELECT (SELECT min(namespace) FROM pending_entries WHERE namespace > ns.n)
               FROM ns WHERE ns.n IS NOT NULL)
           SELECT n FROM ns WHERE n IS NOT NULL""")]
