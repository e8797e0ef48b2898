"""REST routes for the agent board (/v1/board/...), for scripts and
dashboards that do not speak MCP. Each route runs the registry operation of
its board_* tool action (same request builder and reply shape); bearer
tokens as for /mcp; the agent is the principal plus the optional
X-Engram-Session header."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from engram_kit import board_limits as board
from engram_kit.context import CallerContext

from ..clients import Backends
from ..pipeline.strict_args import StrictBody, known_query_only
from ..tools.argtypes import (
    BoardText,
    Children,
    MailIds,
    MailText,
    ParkExpiry,
    ParkNote,
    ParkReason,
    ParkResume,
    RequestIdText,
    text_arg,
)
from .rest import grant, run_op

ListAgentsCaller = Annotated[CallerContext, Depends(grant("board_agents", "list"))]
UpdateAgentCaller = Annotated[CallerContext, Depends(grant("board_agents", "update"))]
ParkCaller = Annotated[CallerContext, Depends(grant("board_agents", "park"))]
ListLeasesCaller = Annotated[CallerContext, Depends(grant("board_lease", "list"))]
ClaimCaller = Annotated[CallerContext, Depends(grant("board_lease", "claim"))]
RenewCaller = Annotated[CallerContext, Depends(grant("board_lease", "renew"))]
ReleaseCaller = Annotated[CallerContext, Depends(grant("board_lease", "release"))]
SendCaller = Annotated[CallerContext, Depends(grant("board_message", "send"))]
ReceiveCaller = Annotated[CallerContext, Depends(grant("board_message", "receive"))]
AckCaller = Annotated[CallerContext, Depends(grant("board_message", "ack"))]
RedactCaller = Annotated[CallerContext, Depends(grant("board_message", "redact"))]


class AgentUpdateBody(StrictBody):
    project: BoardText | None = None
    task: BoardText | None = None
    status: BoardText | None = None
    expect_seconds: int | None = Field(None, ge=0, le=board.EXPECT_MAX_S)
    children: Children | None = None


class ParkBody(StrictBody):
    reason: ParkReason
    needs: ParkNote = ""
    clear_by: ParkNote = ""
    resume: ParkResume = ""
    expires_in_seconds: ParkExpiry = 0


class ClaimBody(StrictBody):
    ttl_seconds: int = Field(0, ge=0, le=board.LEASE_TTL_MAX_S)
    queue: bool = True


class SendBody(StrictBody):
    to: Annotated[str, text_arg(200, "An agent id or unique prefix, 'project:<name>' or "
                                "'all'.")]
    text: MailText
    request_id: RequestIdText = ""


class IdsBody(StrictBody):
    ids: MailIds


def build_board_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1/board", tags=["board"],
                       dependencies=[Depends(known_query_only)])

    @router.get("/agents")
    async def list_agents(caller: ListAgentsCaller,
                          limit: Annotated[int, Query(ge=0, le=board.LIST_MAX)] = 0) -> Any:
        return await run_op(backends, caller, "board_agents", {"limit": limit}, "list")

    @router.post("/agents")
    async def update_agent(body: AgentUpdateBody, caller: UpdateAgentCaller) -> Any:
        return await run_op(backends, caller, "board_agents", body.model_dump(), "update")

    @router.post("/agents/park")
    async def park_agent(body: ParkBody, caller: ParkCaller) -> Any:
        args = {"park_reason": body.reason, "park_needs": body.needs,
                "park_clear_by": body.clear_by, "park_resume": body.resume,
                "park_expires_seconds": body.expires_in_seconds}
        return await run_op(backends, caller, "board_agents", args, "park")

    _lease_and_mail_routes(router, backends)
    return router


def _lease_and_mail_routes(router: APIRouter, backends: Backends) -> None:
    @router.get("/leases")
    async def list_leases(caller: ListLeasesCaller, prefix: str = "") -> Any:
        return await run_op(backends, caller, "board_lease", {"name": prefix}, "list")

    @router.post("/leases/{name:path}/claim")
    async def claim_lease(name: str, body: ClaimBody, caller: ClaimCaller) -> Any:
        return await run_op(backends, caller, "board_lease", {"name": name, **body.model_dump()},
                            "claim")

    @router.post("/leases/{name:path}/renew")
    async def renew_lease(name: str, body: ClaimBody, caller: RenewCaller) -> Any:
        return await run_op(backends, caller, "board_lease",
                            {"name": name, "ttl_seconds": body.ttl_seconds}, "renew")

    @router.post("/leases/{name:path}/release")
    async def release_lease(name: str, caller: ReleaseCaller) -> Any:
        return await run_op(backends, caller, "board_lease", {"name": name}, "release")

    @router.post("/messages")
    async def send_message(body: SendBody, caller: SendCaller) -> Any:
        return await run_op(backends, caller, "board_message", body.model_dump(), "send")

    @router.get("/messages")
    async def receive_messages(caller: ReceiveCaller,
                               limit: Annotated[int, Query(ge=0, le=board.RECEIVE_PAGE_MAX)] = 0,
                               cursor: str = "") -> Any:
        return await run_op(backends, caller, "board_message",
                            {"limit": limit, "cursor": cursor}, "receive")

    @router.post("/messages/ack")
    async def ack_messages(body: IdsBody, caller: AckCaller) -> Any:
        return await run_op(backends, caller, "board_message", {"ids": body.ids}, "ack")

    @router.post("/messages/redact")
    async def redact_messages(body: IdsBody, caller: RedactCaller) -> Any:
        return await run_op(backends, caller, "board_message", {"ids": body.ids}, "redact")
