"""The audit RPCs (AuditService) a service with a hash-chained audit serves
on its own port: show its newest rows and verify its chain, for the
caller's namespace only (row-level security), operators only. A service
reads its own chain, never another's; the gateway asks each one."""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from engram.v1 import audit_pb2, audit_pb2_grpc

from . import audit
from .context import current_caller
from .db import tenant_tx
from .errors import InvalidArgument, PermissionDenied
from .timestamps import to_timestamp
from .vocab import Role

DEFAULT_ROWS = 50
MAX_ROWS = 200
MAX_ACTION_CHARS = 100
# A damaged chain can break on every row after the first bad one: the reply
# names the first ones and counts the rest.
MAX_PROBLEMS = 100


def _operator_namespace() -> str:
    caller = current_caller()
    if caller.role != Role.OPERATOR:
        raise PermissionDenied(f"the audit is for operators; you are {caller.role or 'agent'}")
    return caller.require_namespace()


class AuditServicer(audit_pb2_grpc.AuditServiceServicer):
    def __init__(self, pool: asyncpg.Pool, service: str,
                 extra_columns: tuple[str, ...] = ()) -> None:
        self.pool = pool
        self.service = service  # its schema, where its audit table lives
        self.extra_columns = extra_columns

    async def AuditShow(self, request: Any, context: Any) -> Any:  # noqa: N802
        ns = _operator_namespace()
        limit = request.limit or DEFAULT_ROWS
        if not 1 <= limit <= MAX_ROWS:
            raise InvalidArgument(f"limit is 1-{MAX_ROWS}", field="limit")
        if len(request.action) > MAX_ACTION_CHARS:
            raise InvalidArgument(f"action is at most {MAX_ACTION_CHARS} characters",
                                  field="action")
        async with tenant_tx(self.pool, ns) as conn:
            rows = await conn.fetch(
                f'SELECT id, at, principal, action, subject, detail, hash FROM "{self.service}"'
                ".audit WHERE starts_with(action, $1) ORDER BY id DESC LIMIT $2",
                request.action, limit)
        return audit_pb2.AuditShowResponse(service=self.service, rows=[
            audit_pb2.AuditRow(id=r["id"], at=to_timestamp(r["at"]), principal=r["principal"],
                               action=r["action"], subject=r["subject"],
                               detail_json=_detail(r["detail"]), hash=r["hash"])
            for r in rows])

    async def AuditVerify(self, request: Any, context: Any) -> Any:  # noqa: N802
        ns = _operator_namespace()
        async with tenant_tx(self.pool, ns) as conn:
            checked, problems = await audit.verify(conn, self.service, self.extra_columns)
        return audit_pb2.AuditVerifyResponse(
            service=self.service, rows=checked, total_problems=len(problems),
            problems=[audit_pb2.AuditProblem(row_id=p.row_id, what=p.what)
                      for p in problems[:MAX_PROBLEMS]])


def _detail(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def add_audit_service(server: Any, pool: asyncpg.Pool, service: str,
                      extra_columns: tuple[str, ...] = ()) -> None:
    """Serve the audit RPCs for `service`'s chain on `server`."""
    audit_pb2_grpc.add_AuditServiceServicer_to_server(
        AuditServicer(pool, service, extra_columns), server)
