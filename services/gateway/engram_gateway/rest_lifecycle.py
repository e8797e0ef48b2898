"""REST routes for the review and operator actions of tools_lifecycle.py
(a console's buttons): erasing a document or a message, deciding a parked
contender, undoing a writer. Each runs the registry operation of its tool."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path

from engram_kit.context import CallerContext

from .argtypes import OptionalTime, PrincipalName, Reason, Reasoning, Uuid
from .clients import Backends
from .rest import grant, run_op
from .strict_args import StrictBody, known_query_only

DocumentCaller = Annotated[CallerContext, Depends(grant("document_forget"))]
ContenderCaller = Annotated[CallerContext, Depends(grant("contender_decide"))]
WriterCaller = Annotated[CallerContext, Depends(grant("forget_by_writer"))]
MailCaller = Annotated[CallerContext, Depends(grant("mail_forget"))]


class ReasonBody(StrictBody):
    reason: Reason


class DecideBody(StrictBody):
    decision: Literal["accept", "discard"]
    reasoning: Reasoning


class WriterBody(StrictBody):
    principal: PrincipalName
    reason: Reason
    since: OptionalTime = None
    until: OptionalTime = None
    dry_run: bool = False


def build_lifecycle_router(backends: Backends) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["lifecycle"], dependencies=[Depends(known_query_only)])

    @router.post("/documents/{document_id}/forget")
    async def forget_document(document_id: Annotated[Uuid, Path()], body: ReasonBody,
                              caller: DocumentCaller) -> Any:
        return await run_op(backends, caller, "document_forget",
                            {"document_id": document_id, "reason": body.reason})

    @router.post("/review/contenders/{fact_id}/decide")
    async def decide_contender(fact_id: Annotated[Uuid, Path()], body: DecideBody,
                               caller: ContenderCaller) -> Any:
        return await run_op(backends, caller, "contender_decide",
                            {"fact_id": fact_id, **body.model_dump()})

    @router.post("/operator/forget-writer")
    async def forget_writer(body: WriterBody, caller: WriterCaller) -> Any:
        return await run_op(backends, caller, "forget_by_writer", body.model_dump())

    @router.post("/board/messages/{mail_id}/forget")
    async def forget_message(mail_id: Annotated[Uuid, Path()], body: ReasonBody,
                             caller: MailCaller) -> Any:
        return await run_op(backends, caller, "mail_forget",
                            {"mail_id": mail_id, "reason": body.reason})

    return router
