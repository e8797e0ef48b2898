"""Dynamic batching: every caller's texts share one bounded queue and one model.

- A batch closes when it holds `max_batch_size` texts or the oldest waiting
  text has waited `max_wait_ms` (while the model is busy, texts accumulate, so
  under load batches fill by themselves).
- Interactive texts are always taken before bulk texts, and a batch with
  interactive texts carries no bulk texts. A batch cannot be interrupted, so
  while interactive traffic is recent, bulk texts go in slices whose
  predicted encode time stays under `bulk_slice_ms` (`bulk_batch_ms`
  otherwise).
- With a side lane (a second model thread, on one intra-op thread), two
  batches encode at once:
  - a bulk batch starts only on an idle model, so the other lane stays free
    for searches: an interactive batch that arrives while it encodes runs
    beside it instead of after it, and while interactive traffic is recent
    bulk runs on one intra-op thread: a search waits for no bulk work, and
    bulk slows down only while searches arrive;
  - under interactive load, two interactive batches run side by side on one
    intra-op thread each (on small CPUs that encodes more per second than one
    batch on every thread).
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
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from .backend import Encoded, EncoderBackend
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
    enqueued: float


@dataclass
class _Lane:
    """A model thread (with its own intra-op pool) and the batch it runs."""

    executor: Executor
    task: asyncio.Task | None = None
    priority: Priority = Priority.INTERACTIVE

    def busy(self) -> bool:
        return self.task is not None and not self.task.done()


class Batcher:
    def __init__(self, backend: EncoderBackend, max_batch_size: int, max_wait_ms: float,
                 max_queue_texts: int, bulk_slice_ms: float = 25.0,
                 bulk_batch_ms: float = 250.0,
                 interactive_window_s: float = 1.0,
                 model_thread: Executor | None = None,
                 side_lanes: Sequence[Executor] = (), side_batch_min: int = 16,
                 small_batch_texts: int = 0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.backend = backend
        # Deadlines, waits and windows are read from `clock` (seconds,
        # monotonic): tests move it instead of sleeping.
        self.clock = clock
        self.side_batch_min = side_batch_min
        # Batches of at most this many texts run on one intra-op thread (0: off).
        self.small_batch_texts = small_batch_texts
        # Every encode runs on a lane's one thread: torch's OpenMP pool belongs
        # to the thread that calls it, and encodes hopping between pool threads
        # grow competing pools (measured: +3.5 ms per single-sentence encode on
        # 2 cores). The side lane is a second such thread.
        primary = model_thread or ThreadPoolExecutor(1, thread_name_prefix="model")
        self.lanes = [_Lane(primary)] + [_Lane(lane) for lane in side_lanes]
        self.max_batch_size = max_batch_size
        self.max_wait_s = max_wait_ms / 1000.0
        self.max_queue_texts = max_queue_texts
        self.bulk_slice_s = bulk_slice_ms / 1000.0
        self.bulk_batch_s = bulk_batch_ms / 1000.0
        self.interactive_window_s = interactive_window_s
        self._queues: dict[Priority, deque[_Item]] = {p: deque() for p in Priority}
        # The batch loop sleeps on one future, woken by an arrival, a lane
        # finishing, a batch wait's timer or `run`'s stop: under load every
        # request wakes it, so a wake-up makes no tasks.
        self._waiter: asyncio.Future | None = None
        self._queue_wait = {p: QUEUE_WAIT.labels(p.name.lower()) for p in Priority}
        self._last_interactive = float("-inf")
        # Learned from measured batches: encode cost per text and per character.
        self._seconds_per_text = 0.005
        self._seconds_per_char = 0.00005

    @property
    def depth(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def encode(self, texts: list[str], priority: Priority = Priority.INTERACTIVE,
                     deadline: float | None = None) -> np.ndarray:
        """Encode `texts`; `deadline` is a value of `self.clock` or None."""
        waiting = self.depth
        if waiting + len(texts) > self.max_queue_texts:
            REJECTED.inc()
            retry_ms = int(1000 * self._seconds_per_text * max(waiting, 1)) + 1
            raise QueueFull(waiting, self.max_queue_texts, retry_ms)
        loop = asyncio.get_running_loop()
        now = self.clock()
        items = [_Item(t, loop.create_future(), deadline, priority, now) for t in texts]
        self._queues[priority].extend(items)
        if priority is Priority.INTERACTIVE:
            self._last_interactive = now
        QUEUE_DEPTH.set(self.depth)
        self._wake()
        try:
            if len(items) == 1:  # the common case: no gathering future
                # A copy, as np.stack makes: a row view would keep its whole
                # batch alive (the query cache holds vectors for a minute).
                return (await items[0].future)[None].copy()
            vectors = await asyncio.gather(*(i.future for i in items))
        except Exception:
            # One batch failed: the request has its answer, so its texts still
            # queued are dropped instead of encoded for nobody.
            for item in items:
                item.future.cancel()
            raise
        return np.stack(vectors) if vectors else np.zeros((0, self.backend.dimension))

    def _wake(self, *_: object) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def _sleep(self, timeout: float | None = None) -> None:
        """Until `_wake` (or `timeout` seconds of loop time)."""
        loop = asyncio.get_running_loop()
        self._waiter = loop.create_future()
        timer = loop.call_later(timeout, self._wake) if timeout is not None else None
        try:
            await self._waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    async def run(self, stop: asyncio.Event) -> None:
        stopping = asyncio.ensure_future(stop.wait())
        stopping.add_done_callback(self._wake)
        try:
            while not stop.is_set():
                batch = await self._next_batch(stop)
                if batch:
                    self._dispatch(batch)
        finally:
            stopping.cancel()
        running = self._running_tasks()
        if running:
            await asyncio.gather(*running)

    def _busy_lanes(self) -> list[_Lane]:
        return [lane for lane in self.lanes if lane.busy()]

    def _running_tasks(self) -> list[asyncio.Task]:
        return [lane.task for lane in self.lanes if lane.task is not None and lane.busy()]

    def _bulk_may_start(self) -> bool:
        """A bulk batch starts only on an idle model, so that a lane stays free
        for searches while it runs (with one lane, searches wait for it)."""
        return not self._busy_lanes()

    def _dispatch(self, batch: list[_Item]) -> None:
        """Run the batch on a free lane, as a task: the loop goes on forming
        batches for the other lane.

        Intra-op threads (with one lane they are never touched): a batch
        beside another takes one thread (measured on 2 cores: two 1-thread
        lanes of 16 texts encode about 1.2x faster than one 2-thread lane),
        and so does a bulk batch while searches are arriving; a batch alone
        on the first lane takes all of them. Side lanes, which only run
        beside another batch, stay at one thread from their warm-up on: an
        extra OpenMP pool would make OpenMP stop spinning between a lone
        search's operations (measured: +2.5 ms per single-text encode).

        A small batch (a lone store or search) runs on one thread too: a
        short text gains little from a second thread, and when the cores are
        busy with other work an OpenMP barrier waits for a descheduled
        thread at every operation (measured on 2 shared cores, a lone LoCoMo
        turn: p50 33-86 ms on one thread, 400-560 ms on two)."""
        lane = next(lane for lane in self.lanes if not lane.busy())
        priority = batch[0].priority
        threads: int | None = None
        small = len(batch) <= self.small_batch_texts
        if len(self.lanes) > 1:
            beside = lane is not self.lanes[0] or bool(self._busy_lanes())
            bulk_yields = priority is Priority.BULK and self._searching(self.clock())
            threads = 1 if beside or bulk_yields or small else 0
        elif self.small_batch_texts:
            threads = 1 if small else 0
        lane.priority = priority
        lane.task = asyncio.create_task(self._encode(batch, lane.executor, threads))
        lane.task.add_done_callback(self._wake)  # a free lane may take the next batch

    def _ready(self) -> bool:
        """Work the loop may take now: a lane is free and there are
        interactive texts, or bulk texts that may start."""
        busy = self._busy_lanes()
        if len(busy) == len(self.lanes):
            return False
        interactive = len(self._queues[Priority.INTERACTIVE])
        if interactive and any(lane.priority is Priority.INTERACTIVE for lane in busy):
            # Beside another interactive batch only with enough texts to be
            # worth a lane; fewer wait for the next free lane.
            return interactive >= self.side_batch_min
        if interactive:
            return True
        return bool(self._queues[Priority.BULK]) and self._bulk_may_start()

    async def _next_batch(self, stop: asyncio.Event) -> list[_Item]:
        while not self._ready():
            if stop.is_set():
                return []
            await self._sleep()
        oldest = min(q[0].enqueued for q in self._queues.values() if q)
        while self.depth < self.max_batch_size and not stop.is_set():
            remaining = oldest + self.max_wait_s - self.clock()
            if remaining <= 0:
                break
            await self._sleep(remaining)
        return self._take()

    def _take(self) -> list[_Item]:
        batch: list[_Item] = []
        now = self.clock()
        slice_chars = self._bulk_slice_chars(now)
        for priority in Priority:  # interactive first
            if priority is Priority.BULK and (batch or not self._bulk_may_start()):
                break  # bulk riding along would delay the interactive texts by its encode
            queue = self._queues[priority]
            bulk_chars = 0
            while queue and len(batch) < self.max_batch_size:
                if priority is Priority.BULK and batch and \
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

    def _bulk_slice_chars(self, now: float) -> float:
        """The character budget of a bulk batch, from the learned cost per
        character: a short slice while interactive traffic is recent, a
        longer one otherwise (a search that arrives after a quiet spell
        shares the CPU with an every-thread bulk batch for at most that long)."""
        seconds = self.bulk_slice_s if self._searching(now) else self.bulk_batch_s
        return seconds / self._seconds_per_char

    async def _encode(self, batch: list[_Item], thread: Executor,
                      threads: int | None = None) -> None:
        """`threads`: the model thread's intra-op threads for this batch (0:
        its own count); None leaves the thread as it is."""
        now = self.clock()
        for item in batch:
            self._queue_wait[item.priority].observe(now - item.enqueued)
        batch.sort(key=lambda i: len(i.text))
        BATCH_SIZE.observe(len(batch))
        started = time.perf_counter()
        try:
            encoded = await asyncio.get_running_loop().run_in_executor(
                thread, self._encode_sync, [i.text for i in batch], threads)
        except Exception as exc:  # the backend failed: every caller in the batch hears it
            for item in batch:
                if not item.future.done():
                    item.future.set_exception(exc)
            return
        elapsed = time.perf_counter() - started
        ENCODE_TIME.observe(elapsed)
        TEXTS.inc(len(batch))
        TOKENS.inc(encoded.tokens)
        chars = max(sum(len(i.text) for i in batch), 1)
        self._seconds_per_text = 0.8 * self._seconds_per_text + 0.2 * elapsed / len(batch)
        self._seconds_per_char = 0.8 * self._seconds_per_char + 0.2 * elapsed / chars
        for item, vector in zip(batch, encoded.vectors, strict=True):
            if not item.future.done():
                item.future.set_result(vector)

    def _encode_sync(self, texts: list[str], threads: int | None) -> Encoded:
        if threads is not None:
            self.backend.intra_op_threads(threads)
        return self.backend.encode(texts)


