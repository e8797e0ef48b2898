"""Domain errors from backing services become MCP tool errors with safe text."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ToolError
from prometheus_client import Counter, Histogram

from engram_kit.errors import DomainError, Unavailable

log = logging.getLogger(__name__)

TOOL_CALLS = Counter("engram_gateway_tool_calls_total", "MCP tool calls", ["tool", "outcome"])
TOOL_LATENCY = Histogram(
    "engram_gateway_tool_latency_seconds", "MCP tool call latency", ["tool"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


def unavailable_text(exc: Unavailable, request_id: str) -> str:
    """What an agent needs to act: the error is temporary, and when to retry.
    A write that failed this way may or may not have been applied; the
    gateway never retries it on its own."""
    return (f"unavailable: {exc.message}. This call can be retried: retry after "
            f"{exc.retry_after_s} s (request id {request_id})")


def _safe(exc: Exception, request_id: str) -> ToolError:
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, Unavailable):
        return ToolError(unavailable_text(exc, request_id))
    if isinstance(exc, DomainError) and type(exc) is not DomainError:
        # Service messages are written for the user and carry no internals.
        return ToolError(exc.message)
    log.error("tool failed: %r", exc, extra={"fields": {"request_id": request_id}})
    return ToolError(f"internal error (request id {request_id})")


@contextmanager
def tool_errors(tool: str, request_id: str) -> Iterator[None]:
    """Count and time a tool call; turn any failure into a safe ToolError."""
    started = time.perf_counter()
    outcome = "error"
    try:
        yield
        outcome = "ok"
    except Exception as exc:
        raise _safe(exc, request_id) from None
    finally:
        TOOL_CALLS.labels(tool, outcome).inc()
        TOOL_LATENCY.labels(tool).observe(time.perf_counter() - started)
