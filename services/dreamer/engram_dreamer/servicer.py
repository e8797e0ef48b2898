"""gRPC servicer: proto <-> domain translation only."""

from __future__ import annotations

import json
import uuid
from typing import Any

import asyncpg

from engram.v1 import dreamer_pb2, dreamer_pb2_grpc
from engram_kit.context import current_caller
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument
from engram_kit.timestamps import to_timestamp

from . import repo, repo_passes, repo_proposals, run_detail
from .intake import EventIntake
from .passes import DreamPasses
from .proposals import summary
from .rows import Proposal, RunRow
from .scheduler import triggers_text
from .settings import DreamerSettings


def run_message(r: RunRow) -> dreamer_pb2.DreamRun:
    counts = r.count_map()
    return dreamer_pb2.DreamRun(
        id=str(r.id), status=r.status, started_at=to_timestamp(r.started_at),
        finished_at=to_timestamp(r.finished_at), trigger=r.trigger,
        extractor=r.extractor, model=r.model, entries=r.entries,
        candidates=r.candidates, facts_written=r.facts_written,
        dropped_unanchored=r.dropped_unanchored, quarantined=r.quarantined,
        errors=r.errors, counts_json=json.dumps(counts), error_detail=r.error_detail,
        duration_s=float(counts.get("duration_s", 0.0)), proposals=r.proposals,
        archived=int(counts.get("archived", 0)))


def proposal_message(r: Proposal) -> dreamer_pb2.Proposal:
    return dreamer_pb2.Proposal(
        id=str(r.id), kind=r.kind, status=r.status,
        summary=summary(r), src=r.src,
        relation=r.relation, dst=r.dst, evidence_quote=r.evidence_quote,
        run_id=str(r.run_id), created_at=to_timestamp(r.created_at),
        expires_at=to_timestamp(r.expires_at), decided_by=r.decided_by or "",
        reasoning=r.reasoning)


class DreamerServicer(dreamer_pb2_grpc.DreamerServiceServicer):
    def __init__(self, pool: asyncpg.Pool, intake: EventIntake, s: DreamerSettings,
                 passes: DreamPasses) -> None:
        self.pool = pool
        self.intake = intake
        self.s = s
        self.passes = passes

    async def Status(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC name)
        namespace = current_caller().require_namespace()
        async with tenant_tx(self.pool, namespace) as conn:
            stats = await repo.event_stats(conn)
            pending = await repo_passes.pending_stats(conn)
            last = await repo_passes.runs(conn, 1)
        extractor = self.passes.extractor
        reply = dreamer_pb2.DreamStatusResponse(
            extractor=extractor.name if extractor else "none",
            model=extractor.model if extractor else "", events_processed=stats.n,
            last_event_at=to_timestamp(stats.last),
            consumer_connected=self.intake.connected, pending_entries=pending.n,
            pending_marks=pending.marks,
            triggers=triggers_text(self.s) if extractor else "none (no extractor)")
        if last:
            reply.last_run.CopyFrom(run_message(last[0]))
        return reply

    async def Stats(self, request: Any, context: Any) -> Any:  # noqa: N802
        async with tenant_tx(self.pool, current_caller().require_namespace()) as conn:
            pending = await repo_passes.pending_stats(conn)
            proposals = await repo_proposals.open_count(conn)
        return dreamer_pb2.DreamStatsResponse(pending_entries=pending.n,
                                              pending_marks=pending.marks,
                                              open_proposals=proposals)

    async def Run(self, request: Any, context: Any) -> Any:  # noqa: N802
        row = await self.passes.run(current_caller().require_namespace(), "manual")
        return dreamer_pb2.DreamRunResponse(run_id=str(row.id), run=run_message(row))

    async def Runs(self, request: Any, context: Any) -> Any:  # noqa: N802
        limit = request.page.limit or 20
        if not 1 <= limit <= 200:
            raise InvalidArgument("limit is 1-200", field="limit")
        async with tenant_tx(self.pool, current_caller().require_namespace()) as conn:
            rows = await repo_passes.runs(conn, limit)
        return dreamer_pb2.DreamRunsResponse(runs=[run_message(r) for r in rows])

    async def ListProposals(self, request: Any, context: Any) -> Any:  # noqa: N802
        rows = await self.passes.proposals.listing(current_caller().require_namespace(),
                                                   request.status, request.kind)
        return dreamer_pb2.ListProposalsResponse(proposals=[proposal_message(r) for r in rows])

    async def DecideProposal(self, request: Any, context: Any) -> Any:  # noqa: N802
        row = await self.passes.proposals.decide(current_caller(), request.proposal_id,
                                                 request.decision, request.reasoning)
        return dreamer_pb2.DecideProposalResponse(proposal=proposal_message(row))

    async def Rollback(self, request: Any, context: Any) -> Any:  # noqa: N802
        try:
            run_id = uuid.UUID(request.run_id)
        except ValueError:
            raise InvalidArgument("run_id must be a run id (a UUID)", field="run_id") from None
        reverted, row = await self.passes.rollback(current_caller().require_namespace(), run_id)
        return dreamer_pb2.DreamRollbackResponse(run_id=str(run_id), reverted=reverted,
                                                 run=run_message(row))

    async def RunDetail(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await run_detail.detail(self.pool, current_caller().require_namespace(),
                                       request, run_message)

    async def RollbackPreview(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await run_detail.rollback_preview(
            self.pool, current_caller().require_namespace(), request.run_id)
