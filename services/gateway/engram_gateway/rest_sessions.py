"""REST routes for a client's session (/v1/session/...) and episode
summaries, for hooks and scripts that do not speak MCP: the session-start
briefing, what changed since the last turn, and closing the session. The
session is the X-Engram-Session header (else one rolling session per
principal); each route runs its tool's registry operation."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query

from engram_kit.context import CallerContext

from .argtypes import ChangesCursor, Title, Uuid
from .clients import Backends
from .rest import grant, run_op
from .strict_args import StrictBody, known_query_only

BriefingCaller = Annotated[CallerContext, Depends(grant("briefing"))]
ChangesCaller = Annotated[CallerContext, Depends(grant("session_changes"))]
CloseCaller = Annotated[CallerContext, Depends(grant("session_close"))]
SummaryCaller = Annotated[CallerContext, Depends(grant("episode_summary"))]


class CloseBody(StrictBody):
    title: Title = ""


def build_sessions_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["sessions"], dependencies=[Depends(known_query_only)])

    @router.get("/session/briefing")
    async def briefing(caller: BriefingCaller,
                       token_budget: Annotated[int, Query(ge=100, le=8000)] = 800) -> Any:
        return await run_op(backends, caller, "briefing", {"token_budget": token_budget})

    @router.get("/session/changes")
    async def changes(caller: ChangesCaller,
                      since: Annotated[ChangesCursor, Query()] = "") -> Any:
        return await run_op(backends, caller, "session_changes", {"since": since})

    @router.post("/session/close")
    async def close(body: CloseBody, caller: CloseCaller) -> Any:
        return await run_op(backends, caller, "session_close", body.model_dump())

    @router.get("/episodes/{episode_id}/summary")
    async def summary(episode_id: Annotated[Uuid, Path()], caller: SummaryCaller) -> Any:
        return await run_op(backends, caller, "episode_summary", {"id": episode_id})

    return router
