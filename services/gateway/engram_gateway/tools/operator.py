"""Registry entries for operators: the audit chains (show, verify) and the
principals' tokens (list, create, rotate, revoke). Operator role only.

The audit is read from each service that keeps one, over its own gRPC
port, for the caller's namespace. Tokens live in the principals file the
gateway already reads; an operator manages only principals whose grants lie
within its own, and may not revoke itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field

from engram.v1 import audit_pb2
from engram.v1.audit_pb2_grpc import AuditServiceStub
from engram_kit.errors import DomainError, Unavailable

from ..rpcs import AUDIT, Req, Resp, Rpc, Service
from ..shaping.common import iso_time
from .spec import Access, Effect, Invocation, Namespace, Retry, Tier, ToolSpec, op
from .tokens import TOKENS_TOOL

AUDITED = tuple(AUDIT)
AuditService = Literal["all", "memory", "cortex", "coordination"]


def audit(
    action: Annotated[Literal["show", "verify"], Field(
        description="show the newest rows | verify the hash chains")] = "show",
    service: Annotated[AuditService, Field(
        description="One service's chain, or all of them.")] = "all",
    limit: Annotated[int, Field(ge=1, le=200, description="show: newest rows per service "
                                "(1-200).")] = 50,
    action_prefix: Annotated[str, Field(max_length=100, pattern=r"^[a-z0-9_.:/-]*$",
                                        description="show: only audit actions starting "
                                        "with this.")] = "",
    namespace: Namespace = None,
) -> None:
    """Operator only: the hash-chained audit of this namespace, one chain per service
    (memory, cortex, coordination). show lists the newest rows (who did what, when;
    content only as keyed digests); verify recomputes each chain and reports ok or the
    damaged rows. A service that is down is listed under `unavailable`."""


def _services(choice: str) -> list[Service]:
    return list(AUDITED) if choice == "all" else [Service(choice)]


def _row(r: audit_pb2.AuditRow) -> dict[str, Any]:
    return {"id": r.id, "at": iso_time(r, "at"), "principal": r.principal, "action": r.action,
            "subject": r.subject, "detail": json.loads(r.detail_json or "{}"),
            "hash": r.hash}


async def _each(inv: Invocation, rpc: Callable[[AuditServiceStub], Rpc[Req, Resp]],
                request: Req) -> tuple[dict[str, Resp], dict[str, str]]:
    """`rpc` picks the audit RPC (e.g. `lambda a: a.AuditShow`) from each
    service's AuditService."""
    replies: dict[str, Resp] = {}
    unavailable: dict[str, str] = {}
    for service in _services(inv.args["service"]):
        try:
            replies[service.value] = await inv.calls.call(rpc(AUDIT[service]), inv.caller,
                                                          request)
        except Unavailable as exc:
            unavailable[service.value] = exc.message
        except DomainError as exc:
            if exc.kind != "unimplemented":
                raise
            unavailable[service.value] = "this service does not serve the audit yet"
    return replies, unavailable


async def run_audit_show(inv: Invocation) -> dict[str, Any]:
    replies, unavailable = await _each(inv, lambda a: a.AuditShow, audit_pb2.AuditShowRequest(
        limit=inv.args["limit"], action=inv.args["action_prefix"]))
    return {"namespace": inv.caller.namespace,
            "services": {s: [_row(r) for r in reply.rows] for s, reply in replies.items()},
            "unavailable": unavailable}


async def run_audit_verify(inv: Invocation) -> dict[str, Any]:
    replies, unavailable = await _each(inv, lambda a: a.AuditVerify,
                                       audit_pb2.AuditVerifyRequest())
    services = {s: {"ok": r.total_problems == 0, "rows": r.rows,
                    "total_problems": r.total_problems,
                    "problems": [{"row_id": p.row_id, "what": p.what} for p in r.problems]}
                for s, r in replies.items()}
    return {"namespace": inv.caller.namespace,
            "ok": not unavailable and all(v["ok"] for v in services.values()),
            "services": services, "unavailable": unavailable}


TOOLS = [
    ToolSpec(audit, Tier.FULL, {
        "show": op(Access.OPERATOR, Effect.NONE, Retry.SAFE, run=run_audit_show,
                   rest="GET /v1/operator/audit",
                   rest_args=("service", "limit", "action_prefix")),
        "verify": op(Access.OPERATOR, Effect.NONE, Retry.SAFE, run=run_audit_verify,
                     rest="GET /v1/operator/audit/verify", rest_args=("service",)),
    }, action_arg="action"),
    TOKENS_TOOL,
]
