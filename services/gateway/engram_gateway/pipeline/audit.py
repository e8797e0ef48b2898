"""The audit stage: one access record per operation call, whichever door it
came through, written once when the call ends: on success, on a failure,
and on a refusal at admission. It names who asked for what and how it
ended, never what was asked or answered: no argument value, no token, no
reply content (memory text and secrets must not reach the logs).

The record is a JSON log line on the `engram_gateway.access` logger (the
kit's formatter puts `fields` in the line) and a count in
engram_gateway_operations_total{door,tool,outcome}."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from prometheus_client import Counter, Histogram

from ..tools.spec import Access
from .admit import new_request_id
from .failures import classify

ACCESS_LOGGER = "engram_gateway.access"
log = logging.getLogger(ACCESS_LOGGER)

OPERATIONS = Counter("engram_gateway_operations_total",
                     "Operation calls by door, tool and outcome (one per access record)",
                     ["door", "tool", "outcome"])
# Kept as they were for the dashboards and alerts under deploy/: MCP tool
# calls past admission (a refusal is in OPERATIONS only), "ok" or "error".
TOOL_CALLS = Counter("engram_gateway_tool_calls_total", "MCP tool calls", ["tool", "outcome"])
TOOL_LATENCY = Histogram(
    "engram_gateway_tool_latency_seconds", "MCP tool call latency", ["tool"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


class Door(StrEnum):
    """Where a call came in."""

    MCP = "mcp"
    REST = "rest"
    CONSOLE = "console"


class Outcome(StrEnum):
    """How a call ended, besides a failure kind (failures.classify: e.g.
    permission_denied, resource_exhausted, invalid_argument, not_found)."""

    OK = "ok"
    INTERNAL = "internal"  # a bug, or a service error without a safe message
    CANCELLED = "cancelled"  # the client went away mid-call


def outcome_of(exc: BaseException | None) -> str:
    if exc is None:
        return Outcome.OK
    if isinstance(exc, asyncio.CancelledError):
        return Outcome.CANCELLED
    failure = classify(exc)
    return failure.kind if failure is not None else Outcome.INTERNAL


@dataclass
class AccessRecord:
    """One operation call's record, open until `finish`. `namespace` is the
    one asked for until admission chose it; `action` the registry op's
    label (the tool, and its action if any)."""

    door: Door
    tool: str
    action: str
    access: Access
    principal: str
    namespace: str
    request_id: str = field(default_factory=new_request_id)
    admitted: bool = False
    started: float = field(default_factory=time.perf_counter)
    done: bool = False

    def admit(self, namespace: str) -> None:
        self.namespace, self.admitted = namespace, True

    def fields(self, outcome: str, latency_s: float) -> dict[str, Any]:
        """What the log line holds: nothing of the arguments or the reply."""
        return {"door": self.door.value, "principal": self.principal,
                "namespace": self.namespace, "tool": self.tool, "action": self.action,
                "access": self.access.value, "outcome": str(outcome),
                "latency_ms": round(latency_s * 1000, 2), "request_id": self.request_id}

    def finish(self, exc: BaseException | None = None) -> None:
        """Write the record (once: a second call is ignored)."""
        if self.done:
            return
        self.done = True
        outcome = outcome_of(exc)
        latency_s = time.perf_counter() - self.started
        OPERATIONS.labels(self.door.value, self.tool, str(outcome)).inc()
        if self.door is Door.MCP and self.admitted:
            TOOL_CALLS.labels(self.tool, "ok" if outcome == Outcome.OK else "error").inc()
            TOOL_LATENCY.labels(self.tool).observe(latency_s)
        log.info("access", extra={"fields": self.fields(outcome, latency_s)})

    @contextmanager
    def failing(self) -> Iterator[None]:
        """Finish the record if the block fails (it stays open otherwise)."""
        try:
            yield
        except BaseException as exc:
            self.finish(exc)
            raise

    @contextmanager
    def closing(self) -> Iterator[None]:
        """Finish the record when the block ends, however it ends."""
        with self.failing():
            yield
        self.finish()
