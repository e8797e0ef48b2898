"""Prometheus metrics shared by every service (one default registry)."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Gauge, Histogram

RPC_REQUESTS = Counter(
    "engram_rpc_requests_total", "gRPC requests handled", ["service", "method", "code"]
)
RPC_LATENCY = Histogram(
    "engram_rpc_latency_seconds",
    "gRPC handler latency",
    ["service", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
# Where a handler's time goes (the embed call, the transaction), per RPC:
# fine buckets, because a lone request's stages take single milliseconds.
STAGE_LATENCY = Histogram(
    "engram_rpc_stage_seconds", "Time an RPC handler spent in one stage",
    ["service", "method", "stage"],
    buckets=(0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25,
             1, 5),
)
# The RPC being handled, as (service, method): set by the gRPC server.
rpc_var: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar(
    "rpc", default=("", ""))
READY = Gauge("engram_ready", "1 when the service reports ready", ["service"])
OUTBOX_PENDING = Gauge("engram_outbox_pending", "Outbox rows not yet published", ["service"])
OUTBOX_PUBLISHED = Counter(
    "engram_outbox_published_total", "Outbox rows published to JetStream", ["service"]
)
OUTBOX_LAG = Gauge(
    "engram_outbox_lag_seconds", "Age of the oldest unpublished outbox row", ["service"]
)
EVENTS_CONSUMED = Counter(
    "engram_events_consumed_total", "Events consumed", ["service", "consumer", "result"]
)
EVENTS_REDELIVERED = Counter(
    "engram_events_redelivered_total", "Deliveries of an event after its first",
    ["service", "consumer"])
DEAD_LETTERS = Counter(
    "engram_events_dead_lettered_total", "Events moved to the dead-letter stream",
    ["service", "consumer"])
CONSUMER_LAG = Gauge(
    "engram_consumer_lag_messages", "Messages the durable consumer has not received yet",
    ["service", "consumer"])


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time a stage of the RPC being handled (outside one: not recorded)."""
    service, method = rpc_var.get()
    started = time.perf_counter()
    try:
        yield
    finally:
        if service:
            STAGE_LATENCY.labels(service, method, name).observe(time.perf_counter() - started)
