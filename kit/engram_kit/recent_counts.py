"""Per-namespace event counts over a sliding window (e.g. searches in the
last 24 h), in process memory: hourly buckets, bounded by the window and by
a cap on namespaces. A restart starts from zero; callers say so."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class RecentCounts:
    def __init__(self, window_s: float = 24 * 3600, bucket_s: float = 3600,
                 max_namespaces: int = 10_000,
                 now: Callable[[], float] = time.time) -> None:
        self._window = window_s
        self._bucket = bucket_s
        self._cap = max_namespaces
        self._now = now
        self._counts: OrderedDict[str, dict[int, int]] = OrderedDict()

    def add(self, namespace: str, n: int = 1) -> None:
        slot = int(self._now() // self._bucket)
        buckets = self._counts.pop(namespace, {})
        buckets[slot] = buckets.get(slot, 0) + n
        self._counts[namespace] = buckets  # most recently used last
        while len(self._counts) > self._cap:
            self._counts.popitem(last=False)

    def total(self, namespace: str) -> int:
        buckets = self._counts.get(namespace, {})
        oldest = int((self._now() - self._window) // self._bucket) + 1
        for slot in [s for s in buckets if s < oldest]:
            del buckets[slot]
        return sum(buckets.values())
