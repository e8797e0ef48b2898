"""The REST route for consolidation candidates, written by hand only for its
place: included before the memory routes, so that
/v1/memories/consolidation-candidates is not read as an entry id (generated
routes come after every hand-written one). It runs its tool's registry
operation."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from engram_kit.context import CallerContext

from ..clients import Backends
from ..pipeline.strict_args import known_query_only
from ..tools.argtypes import ClusterLimit, Similarity
from .rest import grant, run_op

CandidatesCaller = Annotated[CallerContext, Depends(grant("memory_consolidation_candidates"))]


def build_hygiene_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["hygiene"], dependencies=[Depends(known_query_only)])

    @router.get("/memories/consolidation-candidates")
    async def candidates(caller: CandidatesCaller,
                         min_similarity: Annotated[Similarity, Query()] = 0,
                         limit: Annotated[ClusterLimit, Query()] = 0) -> Any:
        return await run_op(backends, caller, "memory_consolidation_candidates",
                            {"min_similarity": min_similarity, "limit": limit})

    return router
