"""Time-dependent logic read from an injected clock: the gateway's rate
limiter and the embedder's shared-query cache, tested by moving the clock."""

from __future__ import annotations

import numpy as np
import pytest

from engram_embedder.query_cache import QueryShare
from engram_gateway.limits import RateLimited, RateLimiter


class ManualClock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def test_the_bucket_refills_at_the_rate_and_caps_at_the_burst() -> None:
    clock = ManualClock()
    limiter = RateLimiter(per_second=2, burst=3, clock=clock)
    for _ in range(3):
        limiter.take("agent")
    with pytest.raises(RateLimited, match=r"2 requests per second \(burst 3\); retry in 501 ms"):
        limiter.take("agent")
    limiter.take("other")  # buckets are per principal
    clock.now += 0.5  # one token back
    limiter.take("agent")
    with pytest.raises(RateLimited):
        limiter.take("agent")
    clock.now += 3600  # an idle hour refills to the burst, not beyond
    for _ in range(3):
        limiter.take("agent")
    with pytest.raises(RateLimited):
        limiter.take("agent")


async def test_a_cached_query_vector_expires_after_its_ttl() -> None:
    clock = ManualClock()
    share = QueryShare(max_entries=4, ttl_s=60, clock=clock)
    encodes: list[str] = []

    async def run() -> np.ndarray:
        encodes.append("x")
        return np.ones(3)

    await share.encode("ns", "q", run)
    clock.now += 59
    await share.encode("ns", "q", run)
    assert len(encodes) == 1, "within the TTL the cached vector answers"
    clock.now += 2
    await share.encode("ns", "q", run)
    assert len(encodes) == 2, "past the TTL the query is encoded again"


async def test_a_cached_query_vector_answers_its_own_namespace_only() -> None:
    share = QueryShare(max_entries=4, ttl_s=60, clock=ManualClock())
    encodes: list[str] = []

    async def run() -> np.ndarray:
        encodes.append("x")
        return np.ones(3)

    await share.encode("ns-a", "q", run)
    await share.encode("ns-b", "q", run)
    assert len(encodes) == 2, "another namespace's query is encoded, not served from cache"
    await share.encode("ns-b", "q", run)
    assert len(encodes) == 2
