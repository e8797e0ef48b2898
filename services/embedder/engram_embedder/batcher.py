"""Dynamic batching: concurrent requests share one queue and one model.

A batch closes when it holds `max_batch_size` texts or the oldest waiting
text has waited `max_wait_ms`. Encoding runs in a worker thread so the event
loop keeps accepting requests while the model is busy.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import numpy as np
from prometheus_client import Histogram

from .backend import EncoderBackend

BATCH_SIZE = Histogram(
    "engram_embedder_batch_size", "Texts per encoded batch",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)
QUEUE_WAIT = Histogram(
    "engram_embedder_queue_wait_seconds", "Time a text waited before its batch ran",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1),
)
ENCODE_TIME = Histogram(
    "engram_embedder_encode_seconds", "Model time per batch",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)


@dataclass
class _Item:
    text: str
    future: asyncio.Future
    enqueued: float = field(default_factory=time.perf_counter)


class Batcher:
    def __init__(self, backend: EncoderBackend, max_batch_size: int, max_wait_ms: float) -> None:
        self.backend = backend
        self.max_batch_size = max_batch_size
        self.max_wait_s = max_wait_ms / 1000.0
        self._queue: asyncio.Queue[_Item] = asyncio.Queue()

    async def encode(self, texts: list[str]) -> np.ndarray:
        loop = asyncio.get_running_loop()
        items = [_Item(t, loop.create_future()) for t in texts]
        for item in items:
            self._queue.put_nowait(item)
        vectors = await asyncio.gather(*(i.future for i in items))
        return np.stack(vectors) if vectors else np.zeros((0, self.backend.dimension))

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            batch = await self._collect()
            if batch:
                await self._encode(batch)

    async def _collect(self) -> list[_Item]:
        try:
            first = await asyncio.wait_for(self._queue.get(), timeout=0.5)
        except TimeoutError:
            return []
        batch = [first]
        deadline = first.enqueued + self.max_wait_s
        while len(batch) < self.max_batch_size:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 and self._queue.empty():
                break
            try:
                batch.append(await asyncio.wait_for(self._queue.get(), max(remaining, 0)))
            except TimeoutError:
                break
        return batch

    async def _encode(self, batch: list[_Item]) -> None:
        now = time.perf_counter()
        for item in batch:
            QUEUE_WAIT.observe(now - item.enqueued)
        BATCH_SIZE.observe(len(batch))
        started = time.perf_counter()
        try:
            vectors = await asyncio.to_thread(self.backend.encode, [i.text for i in batch])
        except Exception as exc:
            for item in batch:
                if not item.future.done():
                    item.future.set_exception(exc)
            return
        ENCODE_TIME.observe(time.perf_counter() - started)
        for item, vector in zip(batch, vectors, strict=True):
            if not item.future.done():
                item.future.set_result(vector)
