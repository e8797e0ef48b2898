"""Per-principal request rates: a token bucket per principal, in memory.

Every POST to /mcp (each JSON-RPC message) and every REST request takes one
token; an empty bucket is a clear error with the limit in it and the wait
until the next token."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


class RateLimited(Exception):
    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    def __init__(self, per_second: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self.clock = clock  # monotonic seconds; tests move it instead of sleeping
        self.burst = burst
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def take(self, principal: str) -> None:
        if self.per_second <= 0:
            return
        now = self.clock()
        with self._lock:
            b = self._buckets.setdefault(principal, _Bucket(float(self.burst), now))
            b.tokens = min(float(self.burst), b.tokens + (now - b.at) * self.per_second)
            b.at = now
            if b.tokens < 1.0:
                wait_ms = int((1.0 - b.tokens) / self.per_second * 1000) + 1
                raise RateLimited(
                    f"rate limit: principal {principal!r} may make {self.per_second:g} "
                    f"requests per second (burst {self.burst}); retry in {wait_ms} ms",
                    wait_ms / 1000)
            b.tokens -= 1.0


LIMITER = RateLimiter(0, 1)  # replaced by build_app from settings


def configure(limiter: RateLimiter) -> None:
    global LIMITER
    LIMITER = limiter
