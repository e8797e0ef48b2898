"""REST routes for memories (/v1/memories/...), for scripts and dashboards
that do not speak MCP. Same backend calls, validation and reply shapes as the
memory_* tools; bearer tokens as for /mcp; the namespace comes from the
X-Engram-Namespace header (default: the principal's first)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from engram.v1 import memory_pb2 as pb
from engram_kit.timestamps import to_timestamp

from .auth import with_request_id
from .clients import Backends
from .rest import Caller, answer
from .shaping import (
    get_reply,
    parse_time,
    recent_reply,
    rescue_reply,
    search_reply,
    store_reply,
)
from .strict_args import StrictBody, known_query_only


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
    async def store(body: StoreBody, caller: Caller) -> Any:
        async def call() -> Any:
            keyed = with_request_id(caller, body.request_id)
            return await backends.memory("Store", keyed, pb.StoreRequest(
                text=body.text, source=body.source, tags=body.tags, origin=body.origin,
                episode=body.episode, supersedes=body.supersedes,
                valid_from=to_timestamp(parse_time(body.valid_from, "valid_from"))))
        return await answer(call(), store_reply)

    @router.get("/search")
    async def search(caller: Caller, query: str,
                     top_k: Annotated[int, Query(ge=1, le=50)] = 5,
                     tags: Annotated[list[str] | None, Query()] = None, source: str = "",
                     since: str | None = None, until: str | None = None, episode: str = "",
                     as_of: str | None = None, include_history: bool = False,
                     explain: bool = False) -> Any:
        async def call() -> Any:
            return await backends.memory("Search", caller, pb.SearchRequest(
                query=query, top_k=top_k, tags=tags or [], source=source, explain=explain,
                since=to_timestamp(parse_time(since, "since")),
                until=to_timestamp(parse_time(until, "until")), episode=episode,
                as_of=to_timestamp(parse_time(as_of, "as_of")),
                include_history=include_history))
        return await answer(call(), lambda r: search_reply(r, False, explain, facts=[]))

    @router.get("/recent")
    async def recent(caller: Caller, n: Annotated[int, Query(ge=1, le=50)] = 10,
                     tags: Annotated[list[str] | None, Query()] = None,
                     source: str = "") -> Any:
        return await answer(backends.memory("Recent", caller, pb.RecentRequest(
            n=n, tags=tags or [], source=source)), lambda r: recent_reply(r, False))

    @router.get("/{entry_id}")
    async def get(entry_id: str, caller: Caller) -> Any:
        return await answer(backends.memory("Get", caller, pb.GetRequest(id=entry_id)),
                            get_reply)

    @router.post("/{entry_id}/supersede")
    async def supersede(entry_id: str, body: SupersedeBody, caller: Caller) -> Any:
        return await answer(backends.memory("Supersede", caller, pb.SupersedeRequest(
            entry_id=entry_id, new_text=body.new_text, reason=body.reason)), store_reply)

    @router.post("/{entry_id}/forget")
    async def forget(entry_id: str, body: ForgetBody, caller: Caller) -> Any:
        return await answer(
            backends.memory("Forget", caller, pb.ForgetRequest(entry_id=entry_id,
                                                               reason=body.reason)),
            lambda r: {"forgotten": list(r.forgotten), "tombstones": list(r.tombstones)})

    @router.post("/{entry_id}/rescue")
    async def rescue(entry_id: str, body: RescueBody, caller: Caller) -> Any:
        return await answer(backends.memory("Rescue", caller, pb.RescueRequest(
            entry_id=entry_id, reason=body.reason)), rescue_reply)

    return router
