"""SQL for reading what one run touched (its detail and a rollback preview).
Reads only; the caller owns the transaction."""

from __future__ import annotations

import uuid

import asyncpg

from engram_kit.rows import select_list

from .repo_passes import RUN_COLUMNS
from .rows import QuarantinedEntry, RunFact, RunRow, RunTotals


async def run_row(conn: asyncpg.Connection, run_id: uuid.UUID) -> RunRow | None:
    row = await conn.fetchrow(f"SELECT {RUN_COLUMNS} FROM runs WHERE id = $1", run_id)
    return RunRow.of(row) if row is not None else None


async def inputs_page(conn: asyncpg.Connection, run_id: uuid.UUID, offset: int,
                      limit: int) -> list[uuid.UUID]:
    return await conn.fetchval(
        "SELECT coalesce(inputs[$2 + 1 : $2 + $3], '{}') FROM runs WHERE id = $1",
        run_id, offset, limit) or []


async def facts_page(conn: asyncpg.Connection, run_id: uuid.UUID, offset: int,
                     limit: int) -> list[RunFact]:
    return RunFact.all(await conn.fetch(
        f"SELECT {select_list(RunFact)} FROM run_facts WHERE run_id = $1"
        " ORDER BY fact_id, entry_id OFFSET $2 LIMIT $3", run_id, offset, limit))


async def quarantine_page(conn: asyncpg.Connection, run_id: uuid.UUID, offset: int,
                          limit: int) -> list[QuarantinedEntry]:
    return QuarantinedEntry.all(await conn.fetch(
        f"SELECT {select_list(QuarantinedEntry)} FROM quarantine WHERE run_id = $1"
        " ORDER BY entry_id OFFSET $2 LIMIT $3", run_id, offset, limit))


async def totals(conn: asyncpg.Connection, run_id: uuid.UUID) -> RunTotals:
    """How many rows of each kind the run touched, and what a rollback reopens."""
    row = await conn.fetchrow(
        """SELECT coalesce(cardinality(r.inputs), 0) AS inputs,
                  (SELECT count(*) FROM run_facts WHERE run_id = $1) AS facts,
                  (SELECT count(*) FROM quarantine WHERE run_id = $1) AS quarantined,
                  (SELECT count(*) FROM pending_entries WHERE run_id = $1) AS settled,
                  (SELECT count(*) FROM marks WHERE run_id = $1) AS marks,
                  (SELECT count(*) FROM proposals WHERE run_id = $1 AND status = 'open')
                      AS open_proposals
           FROM runs r WHERE r.id = $1""", run_id)
    assert row is not None  # the caller found the run in this transaction
    return RunTotals.of(row)


async def settled_entries(conn: asyncpg.Connection, run_id: uuid.UUID,
                          limit: int) -> list[uuid.UUID]:
    """Entries the run consolidated or quarantined: a rollback makes them pending."""
    rows = await conn.fetch("SELECT entry_id FROM pending_entries WHERE run_id = $1"
                            " ORDER BY entry_id LIMIT $2", run_id, limit)
    return [r["entry_id"] for r in rows]
