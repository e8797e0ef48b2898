"""Dynamic batching: every caller's texts share one bounded queue and one model.

- A batch closes when it holds `max_batch_size` texts or the oldest waiting
  text has waited `max_wait_ms` (while the model is busy, texts accumulate, so
  under load batches fill by themselves).
- Interactive texts are always taken before bulk texts, and a batch with
  interactive texts carries no bulk texts. A batch cannot be interrupted, so
  while interactive traffic is recent, bulk texts go in slices whose
  predicted encode time stays under `bulk_slice_ms`.
- With a side lane (a second model thread with its own intra-op pool), an
  interactive batch that arrives while a bulk batch encodes runs beside it
  instead of after it, and while interactive traffic is recent bulk batches
  run on one intra-op thread, leaving cores to the side lane: a search waits
  for no bulk work, and bulk slows down only while searches arrive.
- Texts are sorted by length inside a batch to limit padding; results go back
  to each caller in its own order.
- The queue is bounded: beyond `max_queue_texts` a request is rejected at once
  (QueueFull, with a retry hint) instead of waiting ever longer.
- A text whose caller's deadline has passed is dropped before encoding.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from .backend import EncoderBackend
from .metrics import (
    BATCH_SIZE,
    DROPPED,
    ENCODE_TIME,
    QUEUE_DEPTH,
    QUEUE_WAIT,
    REJECTED,
    TEXTS,
    TOKENS,
)


class Priority(IntEnum):
    INTERACTIVE = 0
    BULK = 1


class QueueFull(Exception):
    def __init__(self, waiting: int, limit: int, retry_after_ms: int) -> None:
        super().__init__(f"embedder queue is full ({waiting} texts waiting, limit {limit}); "
                         f"retry after about {retry_after_ms} ms")
        self.retry_after_ms = retry_after_ms


class DeadlineExpired(Exception):
    pass


@dataclass
class _Item:
    text: str
    future: asyncio.Future
    deadline: float | None
    priority: Priority
    enqueued: float = field(default_factory=time.monotonic)


class Batcher:
    def __init__(self, backend: EncoderBackend, max_batch_size: int, max_wait_ms: float,
                 max_queue_texts: int, bulk_slice_ms: float = 25.0,
                 interactive_window_s: float = 1.0,
                 model_thread: Executor | None = None,
                 side_lane: Executor | None = None) -> None:
        self.backend = backend
        self.side_lane = side_lane
        self._bulk: asyncio.Task | None = None  # the bulk batch encoding now, if any
        # Every encode runs on one thread: torch's OpenMP pool belongs to the
        # thread that calls it, and encodes hopping between pool threads grow
        # competing pools (measured: +3.5 ms per single-sentence encode on 2 cores).
        self.model_thread = model_thread or ThreadPoolExecutor(1, thread_name_prefix="model")
        self.max_batch_size = max_batch_size
        self.max_wait_s = max_wait_ms / 1000.0
        self.max_queue_texts = max_queue_texts
        self.bulk_slice_s = bulk_slice_ms / 1000.0
        self.interactive_window_s = interactive_window_s
        self._queues: dict[Priority, deque[_Item]] = {p: deque() for p in Priority}
        self._arrived = asyncio.Event()
        self._last_interactive = float("-inf")
        # Learned from measured batches: encode cost per text and per character.
        self._seconds_per_text = 0.005
        self._seconds_per_char = 0.00005

    @property
    def depth(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def encode(self, texts: list[str], priority: Priority = Priority.INTERACTIVE,
                     deadline: float | None = None) -> np.ndarray:
        """Encode `texts`; `deadline` is a time.monotonic() value or None."""
        waiting = self.depth
        if waiting + len(texts) > self.max_queue_texts:
            REJECTED.inc()
            retry_ms = int(1000 * self._seconds_per_text * max(waiting, 1)) + 1
            raise QueueFull(waiting, self.max_queue_texts, retry_ms)
        loop = asyncio.get_running_loop()
        items = [_Item(t, loop.create_future(), deadline, priority) for t in texts]
        self._queues[priority].extend(items)
        if priority is Priority.INTERACTIVE:
            self._last_interactive = time.monotonic()
        QUEUE_DEPTH.set(self.depth)
        self._arrived.set()
        vectors = await asyncio.gather(*(i.future for i in items))
        return np.stack(vectors) if vectors else np.zeros((0, self.backend.dimension))

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            batch = await self._next_batch(stop)
            if batch:
                await self._dispatch(batch)
        if self._bulk is not None:
            await self._bulk

    def _bulk_running(self) -> bool:
        return self._bulk is not None and not self._bulk.done()

    async def _dispatch(self, batch: list[_Item]) -> None:
        """Without a side lane every batch runs in turn on the model thread.
        With one, a bulk batch runs as a task and the loop goes on taking
        interactive batches, which run beside it on the side lane."""
        if self.side_lane is None:
            await self._encode(batch, self.model_thread)  # the thread count is never touched
        elif batch[0].priority is Priority.BULK:
            # While searches are arriving, bulk leaves a core to the side lane.
            threads = 1 if self._searching(time.monotonic()) else 0
            self._bulk = asyncio.create_task(self._encode(batch, self.model_thread, threads))
        elif self._bulk_running():
            await self._encode(batch, self.side_lane)
        else:
            await self._encode(batch, self.model_thread, 0)

    def _ready(self) -> bool:
        """Work the loop may take now: while a bulk batch encodes, only
        interactive texts (the next bulk batch waits for the model thread)."""
        if self._bulk_running():
            return bool(self._queues[Priority.INTERACTIVE])
        return self.depth > 0

    async def _next_batch(self, stop: asyncio.Event) -> list[_Item]:
        while not self._ready():
            self._arrived.clear()
            if stop.is_set():
                return []
            waiters = [asyncio.ensure_future(self._arrived.wait())]
            if self._bulk_running():
                waiters.append(asyncio.ensure_future(asyncio.shield(self._bulk)))
            await asyncio.wait(waiters, timeout=0.5, return_when=asyncio.FIRST_COMPLETED)
            for w in waiters:
                w.cancel()
        oldest = min(q[0].enqueued for q in self._queues.values() if q)
        while self.depth < self.max_batch_size:
            remaining = oldest + self.max_wait_s - time.monotonic()
            if remaining <= 0:
                break
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), timeout=remaining)
            except TimeoutError:
                break
        return self._take()

    def _take(self) -> list[_Item]:
        batch: list[_Item] = []
        now = time.monotonic()
        slice_chars = self._bulk_slice_chars(now)
        for priority in Priority:  # interactive first
            if priority is Priority.BULK and (batch or self._bulk_running()):
                break  # bulk riding along would delay the interactive texts by its encode
            queue = self._queues[priority]
            bulk_chars = 0
            while queue and len(batch) < self.max_batch_size:
                if priority is Priority.BULK and slice_chars is not None and batch and \
                        bulk_chars + len(queue[0].text) > slice_chars:
                    break
                item = queue.popleft()
                if item.future.done():  # the caller gave up (cancelled or timed out)
                    DROPPED.labels("cancelled").inc()
                    continue
                if item.deadline is not None and item.deadline <= now:
                    DROPPED.labels("deadline").inc()
                    item.future.set_exception(DeadlineExpired())
                    continue
                batch.append(item)
                bulk_chars += len(item.text) if priority is Priority.BULK else 0
        QUEUE_DEPTH.set(self.depth)
        return batch

    def _searching(self, now: float) -> bool:
        """Interactive traffic is recent."""
        return now - self._last_interactive <= self.interactive_window_s

    def _bulk_slice_chars(self, now: float) -> float | None:
        """While interactive traffic is recent, the character budget of a bulk
        slice (from the learned cost per character); otherwise no limit."""
        return self.bulk_slice_s / self._seconds_per_char if self._searching(now) else None

    async def _encode(self, batch: list[_Item], thread: Executor,
                      threads: int | None = None) -> None:
        """`threads`: the model thread's intra-op threads for this batch (0:
        its own count); None leaves the thread as it is (the side lane)."""
        now = time.monotonic()
        for item in batch:
            QUEUE_WAIT.labels(item.priority.name.lower()).observe(now - item.enqueued)
        batch.sort(key=lambda i: len(i.text))
        BATCH_SIZE.observe(len(batch))
        started = time.perf_counter()
        try:
            vectors, tokens = await asyncio.get_running_loop().run_in_executor(
                thread, self._encode_sync, [i.text for i in batch], threads)
        except Exception as exc:  # the backend failed: every caller in the batch hears it
            for item in batch:
                if not item.future.done():
                    item.future.set_exception(exc)
            return
        elapsed = time.perf_counter() - started
        ENCODE_TIME.observe(elapsed)
        TEXTS.inc(len(batch))
        TOKENS.inc(tokens)
        chars = max(sum(len(i.text) for i in batch), 1)
        self._seconds_per_text = 0.8 * self._seconds_per_text + 0.2 * elapsed / len(batch)
        self._seconds_per_char = 0.8 * self._seconds_per_char + 0.2 * elapsed / chars
        for item, vector in zip(batch, vectors, strict=True):
            if not item.future.done():
                item.future.set_result(vector)

    def _encode_sync(self, texts: list[str], threads: int | None) -> tuple[np.ndarray, int]:
        if threads is not None:
            self.backend.intra_op_threads(threads)
        return self.backend.encode(texts), self.backend.count_tokens(texts)


