"""Identical interactive queries share one encode.

A search fans out: memory and the cortex each embed the same query within a
millisecond of each other. The second request joins the first one's encode
(or takes its result from a short cache) instead of queueing a second
encode behind it. Vectors are a pure function of the text and the one model
this process serves, so sharing them is exact. Sharing stops at the
namespace: a cached answer is faster than an encode, so a tenant timing its
own query would learn whether another tenant had just searched that text."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import numpy as np
from prometheus_client import Counter

SHARED = Counter("engram_embedder_query_shared_total",
                 "Query encodes answered by a concurrent or recent identical query",
                 ["how"])


class QueryShare:
    def __init__(self, max_entries: int = 512, ttl_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock  # monotonic seconds; tests move it instead of sleeping
        self._max = max_entries
        self._ttl = ttl_s
        self._cache: OrderedDict[tuple[str, str], tuple[float, np.ndarray]] = OrderedDict()
        self._inflight: dict[tuple[str, str], asyncio.Task] = {}

    async def encode(self, namespace: str, text: str,
                     run: Callable[[], Awaitable[np.ndarray]]) -> np.ndarray:
        key = (namespace, text)
        hit = self._cache.get(key)
        if hit is not None and self._clock() - hit[0] < self._ttl:
            self._cache.move_to_end(key)
            SHARED.labels("cache").inc()
            return hit[1]
        task = self._inflight.get(key)
        if task is not None:
            SHARED.labels("inflight").inc()
        else:
            task = asyncio.ensure_future(run())
            self._inflight[key] = task
            task.add_done_callback(lambda t, k=key: self._settle(k, t))
        # A caller that gives up does not cancel the encode others wait for.
        return await asyncio.shield(task)

    def _settle(self, key: tuple[str, str], task: asyncio.Task) -> None:
        self._inflight.pop(key, None)
        if task.cancelled() or task.exception() is not None:
            return
        self._cache[key] = (self._clock(), task.result())
        self._cache.move_to_end(key)
        while len(self._cache) > self._max:
            self._cache.popitem(last=False)
