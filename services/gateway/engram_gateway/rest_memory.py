"""REST routes for memories (/v1/memories/...), for scripts and dashboards
that do not speak MCP. Each route runs the registry operation of its
memory_* tool (same request builder, validation and reply shape); bearer
tokens as for /mcp; the namespace comes from the X-Engram-Namespace header
(default: the principal's first)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from engram_kit.context import CallerContext

from .clients import Backends
from .rest import grant, run_op
from .shaping import search_reply
from .strict_args import StrictBody, known_query_only

StoreCaller = Annotated[CallerContext, Depends(grant("memory_store"))]
SearchCaller = Annotated[CallerContext, Depends(grant("memory_search"))]
RecentCaller = Annotated[CallerContext, Depends(grant("memory_recent"))]
GetCaller = Annotated[CallerContext, Depends(grant("memory_get"))]
SupersedeCaller = Annotated[CallerContext, Depends(grant("memory_supersede"))]
ForgetCaller = Annotated[CallerContext, Depends(grant("memory_forget"))]
RescueCaller = Annotated[CallerContext, Depends(grant("memory_rescue"))]


class StoreBody(StrictBody):
    text: str
    source: str = ""
    tags: list[str] = Field(default_factory=list)
    origin: str = "agent"
    episode: str = ""
    valid_from: str | None = None
    supersedes: str = ""
    request_id: str = ""  # retry key: a retry with it stores once


class SupersedeBody(StrictBody):
    new_text: str
    reason: str = ""


class ForgetBody(StrictBody):
    reason: str


class RescueBody(StrictBody):
    reason: str = ""


def build_memory_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1/memories", tags=["memories"],
                       dependencies=[Depends(known_query_only)])

    @router.post("")
    async def store(body: StoreBody, caller: StoreCaller) -> Any:
        return await run_op(backends, caller, "memory_store", body.model_dump())

    @router.get("/search")
    async def search(caller: SearchCaller, query: str,
                     top_k: Annotated[int, Query(ge=1, le=50)] = 5,
                     tags: Annotated[list[str] | None, Query()] = None, source: str = "",
                     since: str | None = None, until: str | None = None, episode: str = "",
                     as_of: str | None = None, include_history: bool = False,
                     explain: bool = False) -> Any:
        args = {"query": query, "top_k": top_k, "tags": tags, "source": source,
                "since": since, "until": until, "episode": episode, "as_of": as_of,
                "include_history": include_history, "explain": explain}
        # Entries only: the facts block is the MCP tool's.
        return await run_op(backends, caller, "memory_search", args,
                            shape=lambda r: search_reply(r, False, explain, facts=[]))

    @router.get("/recent")
    async def recent(caller: RecentCaller, n: Annotated[int, Query(ge=1, le=50)] = 10,
                     tags: Annotated[list[str] | None, Query()] = None,
                     source: str = "") -> Any:
        return await run_op(backends, caller, "memory_recent",
                            {"n": n, "tags": tags, "source": source})

    @router.get("/{entry_id}")
    async def get(entry_id: str, caller: GetCaller) -> Any:
        return await run_op(backends, caller, "memory_get", {"id": entry_id})

    @router.post("/{entry_id}/supersede")
    async def supersede(entry_id: str, body: SupersedeBody, caller: SupersedeCaller) -> Any:
        return await run_op(backends, caller, "memory_supersede",
                            {"entry_id": entry_id, **body.model_dump()})

    @router.post("/{entry_id}/forget")
    async def forget(entry_id: str, body: ForgetBody, caller: ForgetCaller) -> Any:
        return await run_op(backends, caller, "memory_forget",
                            {"entry_id": entry_id, **body.model_dump()})

    @router.post("/{entry_id}/rescue")
    async def rescue(entry_id: str, body: RescueBody, caller: RescueCaller) -> Any:
        return await run_op(backends, caller, "memory_rescue",
                            {"entry_id": entry_id, **body.model_dump()})

    return router
