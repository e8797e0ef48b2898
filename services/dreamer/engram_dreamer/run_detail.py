"""What one dream run touched, as the dreamer recorded it (the rows a
rollback works from), and what rolling it back would change, computed
without changing anything."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import asyncpg

from engram.v1 import dreamer_pb2 as pb
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument, NotFound

from . import repo_proposals
from . import repo_run_detail as repo
from .rows import RunFact, RunRow

DEFAULT_PAGE = 50
MAX_PAGE = 200


def run_id_of(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise InvalidArgument("run_id must be a run id (a UUID)", field="run_id") from None


def _page(offset: int, limit: int) -> tuple[int, int]:
    limit = limit or DEFAULT_PAGE
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidArgument(f"limit is 1-{MAX_PAGE}", field="limit")
    if offset < 0:
        raise InvalidArgument("offset must not be negative", field="offset")
    return offset, limit


def _fact(r: RunFact) -> pb.RunFact:
    return pb.RunFact(fact_id=str(r.fact_id), entry_id=str(r.entry_id),
                      action=r.action, kind=r.kind)


async def _run(conn: asyncpg.Connection, run_id: uuid.UUID) -> RunRow:
    row = await repo.run_row(conn, run_id)
    if row is None:
        raise NotFound(f"no dream run {run_id}")
    return row


async def detail(pool: asyncpg.Pool, ns: str, request: pb.DreamRunDetailRequest,
                 run_message: Callable[[RunRow], pb.DreamRun]
                 ) -> pb.DreamRunDetailResponse:
    run_id = run_id_of(request.run_id)
    offset, limit = _page(request.offset, request.limit)
    async with tenant_tx(pool, ns) as conn:
        row = await _run(conn, run_id)
        totals = await repo.totals(conn, run_id)
        read = await repo.inputs_page(conn, run_id, offset, limit)
        facts = await repo.facts_page(conn, run_id, offset, limit)
        quarantined = await repo.quarantine_page(conn, run_id, offset, limit)
    return pb.DreamRunDetailResponse(
        run=run_message(row),
        entries_read=[str(e) for e in read], facts_written=[_fact(f) for f in facts],
        quarantined=[pb.RunQuarantine(entry_id=str(q.entry_id), reason=q.reason)
                     for q in quarantined],
        total_entries_read=totals.inputs, total_facts_written=totals.facts,
        total_quarantined=totals.quarantined)


async def rollback_preview(pool: asyncpg.Pool, ns: str,
                           run_id_text: str) -> pb.DreamRollbackPreviewResponse:
    """The rows a rollback would revert, reopen and clear. Cortex refuses a
    revert that later writes depend on only when it is applied; `blockers`
    holds what the dreamer can tell now."""
    run_id = run_id_of(run_id_text)
    async with tenant_tx(pool, ns) as conn:
        row = await _run(conn, run_id)
        totals = await repo.totals(conn, run_id)
        facts = await repo.facts_page(conn, run_id, 0, MAX_PAGE)
        entries = await repo.settled_entries(conn, run_id, MAX_PAGE)
        cleared = await repo.quarantine_page(conn, run_id, 0, MAX_PAGE)
        decided = await repo_proposals.decided_of_run(conn, run_id)
    blockers = []
    if row.status != "committed":
        blockers.append(f"the run is {row.status}; only a committed run can be rolled back")
    if decided:
        blockers.append("proposals already decided: " + ", ".join(
            f"{r.id} ({r.status})" for r in decided))
    counts = row.count_map()
    return pb.DreamRollbackPreviewResponse(
        run_id=str(run_id), allowed=not blockers, blockers=blockers,
        facts_reverted=[_fact(f) for f in facts],
        entries_reopened=[str(e) for e in entries],
        quarantine_cleared=[str(q.entry_id) for q in cleared],
        proposals_withdrawn=totals.open_proposals, marks_reopened=totals.marks,
        archived_restored=int(counts.get("archived", 0)),
        truncated=max(totals.facts, totals.settled, totals.quarantined) > MAX_PAGE)
