"""Typed failures, one mapping for every door: a refusal of admission, the
rate limit, a gateway-side argument error or a service's domain error
becomes a `Failure` (kind, status, detail, retry hint); MCP renders it as
a tool error with safe text, REST as a JSON problem {error, detail}, the
console as an error page. Anything else is a bug: no door shows its text."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mcp.server.mcpserver.exceptions import ToolError

from engram_kit.errors import DomainError, Unavailable

from ..limits import RateLimited
from .admit import BadSession, NamespaceRefused

log = logging.getLogger(__name__)

HTTP_STATUS = {"invalid_argument": 400, "unauthenticated": 401, "permission_denied": 403,
               "not_found": 404, "conflict": 409, "resource_exhausted": 429,
               "unavailable": 503, "deadline_exceeded": 504, "unimplemented": 501}


@dataclass(frozen=True)
class Failure:
    """What a client is told. `typed`: a service error written for the user
    (an untyped DomainError carries no safe message)."""

    kind: str
    detail: str
    retry_after_s: int | None = None
    typed: bool = True

    @property
    def status(self) -> int:
        return HTTP_STATUS.get(self.kind, 500)


def classify(exc: BaseException) -> Failure | None:
    """The failure `exc` means to a client; None for a bug."""
    if isinstance(exc, RateLimited):
        return Failure("resource_exhausted", str(exc))
    if isinstance(exc, NamespaceRefused):
        return Failure("permission_denied", str(exc))
    if isinstance(exc, BadSession | ToolError):  # ToolError: a malformed date and such
        return Failure("invalid_argument", str(exc))
    if isinstance(exc, Unavailable):
        return Failure(exc.kind, exc.message, exc.retry_after_s)
    if isinstance(exc, DomainError):
        return Failure(exc.kind, exc.message, typed=type(exc) is not DomainError)
    return None


def unavailable_text(exc: Unavailable, request_id: str) -> str:
    """What an agent needs to act: the error is temporary, and when to retry.
    A write that failed this way may or may not have been applied; the
    gateway never retries it on its own."""
    return (f"unavailable: {exc.message}. This call can be retried: retry after "
            f"{exc.retry_after_s} s (request id {request_id})")


def tool_error(exc: Exception, request_id: str) -> ToolError:
    """The MCP rendering of a failure: its safe text, never internals."""
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, Unavailable):
        return ToolError(unavailable_text(exc, request_id))
    failure = classify(exc)
    if failure is not None and failure.typed:
        return ToolError(failure.detail)
    log.error("tool failed: %r", exc, extra={"fields": {"request_id": request_id}})
    return ToolError(f"internal error (request id {request_id})")


@contextmanager
def tool_errors(request_id: str) -> Iterator[None]:
    """Turn any failure of an MCP call into a safe ToolError (the audit
    stage counts and times the call)."""
    try:
        yield
    except Exception as exc:
        raise tool_error(exc, request_id) from None
