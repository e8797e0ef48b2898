"""REST routes for keeping the bank tidy (consolidation, statistics), for an
operator console. Each runs its tool's registry operation; included before
the memory routes so /v1/memories/consolidation-candidates is not read as
an entry id."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from engram_kit.context import CallerContext

from .argtypes import ClusterLimit, EntryIds, MemoryText, Reason, Similarity
from .clients import Backends
from .rest import grant, run_op
from .strict_args import StrictBody, known_query_only
from .toolspec import RequestId

CandidatesCaller = Annotated[CallerContext, Depends(grant("memory_consolidation_candidates"))]
ConsolidateCaller = Annotated[CallerContext, Depends(grant("memory_consolidate"))]
StatsCaller = Annotated[CallerContext, Depends(grant("memory_stats"))]


class ConsolidateBody(StrictBody):
    entry_ids: EntryIds
    new_text: MemoryText
    reason: Reason
    request_id: RequestId = ""  # retry key: a retry with it takes effect once


def build_hygiene_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["hygiene"], dependencies=[Depends(known_query_only)])

    @router.get("/memories/consolidation-candidates")
    async def candidates(caller: CandidatesCaller,
                         min_similarity: Annotated[Similarity, Query()] = 0,
                         limit: Annotated[ClusterLimit, Query()] = 0) -> Any:
        return await run_op(backends, caller, "memory_consolidation_candidates",
                            {"min_similarity": min_similarity, "limit": limit})

    @router.post("/memories/consolidate")
    async def consolidate(body: ConsolidateBody, caller: ConsolidateCaller) -> Any:
        return await run_op(backends, caller, "memory_consolidate", body.model_dump())

    @router.get("/stats")
    async def stats(caller: StatsCaller) -> Any:
        return await run_op(backends, caller, "memory_stats", {})

    return router
