"""REST routes for memories (/v1/memories/...), for scripts and dashboards
that do not speak MCP. Each route runs the registry operation of its
memory_* tool (same request builder, validation and reply shape); bearer
tokens as for /mcp; the namespace comes from the X-Engram-Namespace header
(default: the principal's first)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import Field

from engram_kit.context import CallerContext

from ..clients import Backends
from ..pipeline.strict_args import StrictBody, known_query_only
from ..tools.argtypes import (
    EntryId,
    Episode,
    MemoryText,
    Note,
    OptionalTags,
    OptionalTime,
    OptionalUuid,
    Origin,
    QueryText,
    Reason,
    Source,
    Tags,
)
from ..tools.spec import RequestId
from .rest import grant, run_op

StoreCaller = Annotated[CallerContext, Depends(grant("memory_store"))]
SearchCaller = Annotated[CallerContext, Depends(grant("memory_search"))]
RecentCaller = Annotated[CallerContext, Depends(grant("memory_recent"))]
GetCaller = Annotated[CallerContext, Depends(grant("memory_get"))]
SupersedeCaller = Annotated[CallerContext, Depends(grant("memory_supersede"))]
ForgetCaller = Annotated[CallerContext, Depends(grant("memory_forget"))]
RescueCaller = Annotated[CallerContext, Depends(grant("memory_rescue"))]


# The fields have the memory tools' argument types (argtypes.py): the same
# constraints in the OpenAPI document, the REST validation and the MCP schema.
class StoreBody(StrictBody):
    text: MemoryText
    source: Source = ""
    tags: Tags = Field(default_factory=list)
    origin: Origin = "agent"
    episode: Episode = ""
    valid_from: OptionalTime = None
    supersedes: OptionalUuid = ""
    request_id: RequestId = ""  # retry key: a retry with it stores once


class SupersedeBody(StrictBody):
    new_text: MemoryText
    reason: Note = ""


class ForgetBody(StrictBody):
    reason: Reason


class RescueBody(StrictBody):
    reason: Note = ""


def build_memory_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1/memories", tags=["memories"],
                       dependencies=[Depends(known_query_only)])

    @router.post("")
    async def store(body: StoreBody, caller: StoreCaller) -> Any:
        return await run_op(backends, caller, "memory_store", body.model_dump())

    @router.get("/search")
    async def search(caller: SearchCaller, query: Annotated[QueryText, Query()],
                     top_k: Annotated[int, Query(ge=1, le=50)] = 5,
                     tags: Annotated[OptionalTags, Query()] = None,
                     source: Annotated[Source, Query()] = "",
                     since: Annotated[OptionalTime, Query()] = None,
                     until: Annotated[OptionalTime, Query()] = None,
                     episode: Annotated[Episode, Query()] = "",
                     as_of: Annotated[OptionalTime, Query()] = None,
                     include_history: bool = False, explain: bool = False,
                     verbose: bool = False) -> Any:
        args = {"query": query, "top_k": top_k, "tags": tags, "source": source,
                "since": since, "until": until, "episode": episode, "as_of": as_of,
                "include_history": include_history, "explain": explain, "verbose": verbose}
        return await run_op(backends, caller, "memory_search", args)

    @router.get("/recent")
    async def recent(caller: RecentCaller, n: Annotated[int, Query(ge=1, le=50)] = 10,
                     tags: Annotated[OptionalTags, Query()] = None,
                     source: Annotated[Source, Query()] = "", verbose: bool = False) -> Any:
        return await run_op(backends, caller, "memory_recent",
                            {"n": n, "tags": tags, "source": source, "verbose": verbose})

    @router.get("/{entry_id}")
    async def get(entry_id: Annotated[EntryId, Path()], caller: GetCaller) -> Any:
        return await run_op(backends, caller, "memory_get", {"id": entry_id})

    @router.post("/{entry_id}/supersede")
    async def supersede(entry_id: Annotated[EntryId, Path()], body: SupersedeBody,
                        caller: SupersedeCaller) -> Any:
        return await run_op(backends, caller, "memory_supersede",
                            {"entry_id": entry_id, **body.model_dump()})

    @router.post("/{entry_id}/forget")
    async def forget(entry_id: Annotated[EntryId, Path()], body: ForgetBody,
                     caller: ForgetCaller) -> Any:
        return await run_op(backends, caller, "memory_forget",
                            {"entry_id": entry_id, **body.model_dump()})

    @router.post("/{entry_id}/rescue")
    async def rescue(entry_id: Annotated[EntryId, Path()], body: RescueBody,
                     caller: RescueCaller) -> Any:
        return await run_op(backends, caller, "memory_rescue",
                            {"entry_id": entry_id, **body.model_dump()})

    return router
