"""REST routes for the agent board (/v1/board/...), for scripts and
dashboards that do not speak MCP. Same backend calls and shapes as the
board_* tools; bearer tokens as for /mcp; the agent is the principal plus
the optional X-Engram-Session header."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from engram.v1 import coordination_pb2 as pb
from engram_kit.context import CallerContext

from .clients import Backends
from .rest import Caller, answer
from .shaping_board import (
    agent_item,
    agents_reply,
    inbox_reply,
    lease_item,
    lease_reply,
    send_reply,
)
from .strict_args import StrictBody, known_query_only


class AgentUpdateBody(StrictBody):
    project: str | None = None
    task: str | None = None
    status: str | None = None
    expect_seconds: int | None = Field(None, ge=0, le=2**31)
    children: list[str] | None = None


class ParkBody(StrictBody):
    reason: str
    needs: str = ""
    clear_by: str = ""
    resume: str = ""
    expires_in_seconds: int = Field(0, ge=0, le=2**31)


class ClaimBody(StrictBody):
    ttl_seconds: int = Field(0, ge=0, le=86400)
    queue: bool = True


class SendBody(StrictBody):
    to: str
    text: str
    request_id: str = ""


class IdsBody(StrictBody):
    ids: list[str]


def build_board_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1/board", tags=["board"],
                       dependencies=[Depends(known_query_only)])

    async def call(method: str, caller: CallerContext, request: Any,
                   shape: Callable[[Any], dict[str, Any]]) -> Any:
        return await answer(backends.coordination(method, caller, request), shape)

    @router.get("/agents")
    async def list_agents(caller: Caller, limit: Annotated[int, Query(ge=0, le=50)] = 0) -> Any:
        return await call("ListAgents", caller, pb.ListAgentsRequest(limit=limit),
                          agents_reply)

    @router.post("/agents")
    async def update_agent(body: AgentUpdateBody, caller: Caller) -> Any:
        request = pb.UpdateAgentRequest(set_children=body.children is not None,
                                        children=body.children or [])
        for name in ("project", "task", "status", "expect_seconds"):
            if getattr(body, name) is not None:
                setattr(request, name, getattr(body, name))
        return await call("UpdateAgent", caller, request, lambda r: {"agent": agent_item(r.agent)})

    @router.post("/agents/park")
    async def park_agent(body: ParkBody, caller: Caller) -> Any:
        return await call("ParkAgent", caller, pb.ParkRequest(**body.model_dump()),
                          lambda r: {"agent": agent_item(r.agent)})

    @router.get("/leases")
    async def list_leases(caller: Caller, prefix: str = "") -> Any:
        return await call("ListLeases", caller, pb.ListLeasesRequest(name_prefix=prefix),
                          lambda r: {"leases": [lease_item(x) for x in r.leases]})

    @router.post("/leases/{name:path}/claim")
    async def claim_lease(name: str, body: ClaimBody, caller: Caller) -> Any:
        request = pb.ClaimLeaseRequest(name=name, ttl_seconds=body.ttl_seconds,
                                       no_queue=not body.queue)
        return await call("ClaimLease", caller, request, lease_reply)

    @router.post("/leases/{name:path}/renew")
    async def renew_lease(name: str, body: ClaimBody, caller: Caller) -> Any:
        return await call("RenewLease", caller,
                          pb.LeaseRequest(name=name, ttl_seconds=body.ttl_seconds), lease_reply)

    @router.post("/leases/{name:path}/release")
    async def release_lease(name: str, caller: Caller) -> Any:
        return await call("ReleaseLease", caller, pb.LeaseRequest(name=name), lease_reply)

    @router.post("/messages")
    async def send_message(body: SendBody, caller: Caller) -> Any:
        return await call("SendMessage", caller, pb.SendMessageRequest(**body.model_dump()),
                          send_reply)

    @router.get("/messages")
    async def receive_messages(caller: Caller, limit: Annotated[int, Query(ge=0, le=50)] = 0,
                               cursor: str = "") -> Any:
        return await call("ReceiveMessages", caller,
                          pb.ReceiveMessagesRequest(limit=limit, cursor=cursor), inbox_reply)

    @router.post("/messages/ack")
    async def ack_messages(body: IdsBody, caller: Caller) -> Any:
        return await call("AckMessages", caller, pb.AckMessagesRequest(ids=body.ids),
                          lambda r: {"acked": r.acked, "already_acked": list(r.already_acked)})

    @router.post("/messages/redact")
    async def redact_messages(body: IdsBody, caller: Caller) -> Any:
        return await call("RedactMessages", caller, pb.RedactMessagesRequest(ids=body.ids),
                          lambda r: {"redacted": r.redacted})

    return router
