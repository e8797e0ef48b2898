"""REST routes for a client's session (/v1/session/...) and episode
summaries, for hooks and scripts that do not speak MCP: the session-start
briefing, what changed since the last turn, and closing the session. The
session is the X-Engram-Session header (else one rolling session per
principal); each route runs its tool's registry operation. The session
routes are the hooks' calls: they tell the session binder which client
sessions are open (session_binding)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import Field

from engram_kit.context import CallerContext

from ..clients import Backends
from ..pipeline.strict_args import StrictBody, known_query_only
from ..tools.argtypes import ChangesCursor, Title, Uuid
from . import session_binding
from .rest import grant, run_op

OPEN_SESSIONS = "X-Engram-Open-Sessions"
BriefingCaller = Annotated[CallerContext, Depends(grant("briefing"))]
ChangesCaller = Annotated[CallerContext, Depends(grant("session_changes"))]
CloseCaller = Annotated[CallerContext, Depends(grant("session_close"))]
SummaryCaller = Annotated[CallerContext, Depends(grant("episode_summary"))]


class CloseBody(StrictBody):
    title: Title = ""
    end: Annotated[bool, Field(description="The client ended the session (SessionEnd): "
                               "tool calls without a session header no longer bind to "
                               "it.")] = False


def hook_session(caller: CallerContext, request: Request, response: Response | None = None,
                 end: bool = False) -> None:
    """A hook's call: the client session it names is open (or, with `end`,
    over) for the principal's header-less MCP calls to bind to. The reply
    says how many sessions the principal has open (X-Engram-Open-Sessions):
    more than one, and header-less tool calls cannot be bound."""
    session = request.headers.get("x-engram-session", "")
    if not session:
        return
    if end:
        session_binding.BINDER.hook_ended(caller.principal, session)
        return
    count = session_binding.BINDER.hook_seen(caller.principal, session)
    if response is not None:
        response.headers[OPEN_SESSIONS] = str(count)


def build_sessions_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["sessions"], dependencies=[Depends(known_query_only)])

    @router.get("/session/briefing")
    async def briefing(caller: BriefingCaller, request: Request, response: Response,
                       token_budget: Annotated[int, Query(ge=100, le=8000)] = 800) -> Any:
        hook_session(caller, request, response)
        return await run_op(backends, caller, "briefing", {"token_budget": token_budget})

    @router.get("/session/changes")
    async def changes(caller: ChangesCaller, request: Request, response: Response,
                      since: Annotated[ChangesCursor, Query()] = "") -> Any:
        hook_session(caller, request, response)
        return await run_op(backends, caller, "session_changes", {"since": since})

    @router.post("/session/close")
    async def close(body: CloseBody, caller: CloseCaller, request: Request) -> Any:
        reply = await run_op(backends, caller, "session_close", {"title": body.title})
        hook_session(caller, request, end=body.end)
        return reply

    @router.get("/episodes/{episode_id}/summary")
    async def summary(episode_id: Annotated[Uuid, Path()], caller: SummaryCaller) -> Any:
        return await run_op(backends, caller, "episode_summary", {"id": episode_id})

    return router
