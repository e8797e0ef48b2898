"""The caller context carried as gRPC metadata (see proto common.proto)."""

from __future__ import annotations

import contextvars
import math
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import InvalidArgument

MD_INTERNAL_TOKEN = "x-engram-internal-token"
MD_PRINCIPAL = "x-engram-principal"
MD_NAMESPACE = "x-engram-namespace"
MD_CLIENT_ID = "x-engram-client-id"
MD_SESSION_ID = "x-engram-session-id"
MD_ROLE = "x-engram-role"
MD_REQUEST_ID = "x-request-id"
MD_READ_ONLY = "x-engram-read-only"
MD_IDEMPOTENCY_KEY = "x-engram-idempotency-key"

NAMESPACE_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}\Z")


@dataclass(frozen=True)
class CallerContext:
    principal: str = ""
    namespace: str = ""
    client_id: str = ""
    session_id: str = ""
    request_id: str = ""
    # Set by the gateway from the authenticated principal; services trust it
    # only because the internal token proves the call came through the gateway.
    role: str = ""
    # The caller holds a read grant only on the namespace: services write
    # nothing on its behalf (no registration, heartbeat or use marks).
    read_only: bool = False
    # A write carrying a key takes effect once: a repeat with the same key
    # (a retry after a lost reply) gets the first reply.
    idempotency_key: str = ""

    def to_metadata(self, internal_token: str) -> tuple[tuple[str, str], ...]:
        pairs = [
            (MD_INTERNAL_TOKEN, internal_token),
            (MD_PRINCIPAL, self.principal),
            (MD_NAMESPACE, self.namespace),
            (MD_CLIENT_ID, self.client_id),
            (MD_SESSION_ID, self.session_id),
            (MD_REQUEST_ID, self.request_id),
            (MD_ROLE, self.role),
            (MD_READ_ONLY, "1" if self.read_only else ""),
            (MD_IDEMPOTENCY_KEY, self.idempotency_key),
        ]
        return tuple((k, v) for k, v in pairs if v)

    @classmethod
    def from_metadata(cls, metadata: Iterable[tuple[str, str | bytes]] | None) -> CallerContext:
        md = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in (metadata or ())}
        return cls(
            principal=md.get(MD_PRINCIPAL, ""),
            namespace=md.get(MD_NAMESPACE, ""),
            client_id=md.get(MD_CLIENT_ID, ""),
            session_id=md.get(MD_SESSION_ID, ""),
            request_id=md.get(MD_REQUEST_ID, ""),
            role=md.get(MD_ROLE, ""),
            read_only=md.get(MD_READ_ONLY, "") == "1",
            idempotency_key=md.get(MD_IDEMPOTENCY_KEY, ""),
        )

    def require_namespace(self) -> str:
        """An empty or malformed namespace is an error, never an empty result."""
        if not self.namespace:
            raise InvalidArgument("namespace is required", field="namespace")
        if not NAMESPACE_RE.match(self.namespace):
            raise InvalidArgument(
                "namespace must be 1-63 chars of a-z, 0-9, '_', '.', '-'", field="namespace"
            )
        return self.namespace


_ANONYMOUS = CallerContext()
caller_var: contextvars.ContextVar[CallerContext | None] = contextvars.ContextVar(
    "caller", default=None
)


def current_caller() -> CallerContext:
    return caller_var.get() or _ANONYMOUS


# When the current call's caller stops waiting (time.monotonic()); None: no
# deadline. Set per call by the server interceptor from the gRPC deadline, so
# long work can stop once nobody is waiting for its answer.
deadline_var: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "deadline", default=None
)


def time_left(cap: float = math.inf) -> float:
    """Seconds the current call may still spend: `cap`, or less when the
    caller's deadline is nearer (at most 0 once it has passed)."""
    deadline = deadline_var.get()
    if deadline is None:
        return cap
    return min(cap, deadline - time.monotonic())
