"""The embedder's batcher reads deadlines and windows from an injected clock:
these tests move the clock instead of sleeping. The encoder here is a stand-in
that records its batches (the real model's behaviour is covered by the
integration tests over a real embedder process)."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from engram_embedder.backend import Encoded
from engram_embedder.batcher import Batcher, DeadlineExpired, Priority
from engram_embedder.metrics import DROPPED


class ManualClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class GatedEncoder:
    """Encodes a batch once `gate` is set; records every batch's texts."""

    name, model, dimension, normalized = "gated", "gated", 4, True

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.batches: list[list[str]] = []

    def encode(self, texts: list[str]) -> Encoded:
        self.gate.wait(10)
        self.batches.append(list(texts))
        return Encoded(np.ones((len(texts), self.dimension), dtype=np.float32), len(texts))

    def intra_op_threads(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def dropped_for_deadline() -> float:
    return DROPPED.labels("deadline")._value.get()  # pyright: ignore[reportAttributeAccessIssue]


async def test_a_text_whose_deadline_passes_in_the_queue_is_dropped_unencoded() -> None:
    clock, encoder = ManualClock(), GatedEncoder()
    batcher = Batcher(encoder, max_batch_size=1, max_wait_ms=0, max_queue_texts=10, clock=clock)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    before = dropped_for_deadline()
    first = asyncio.create_task(batcher.encode(["occupies the model"]))
    while not batcher._busy_lanes():  # the first batch is on the model
        await asyncio.sleep(0)
    late = asyncio.create_task(batcher.encode(["queued behind it"], deadline=clock() + 1.0))
    in_time = asyncio.create_task(batcher.encode(["no deadline"]))
    await asyncio.sleep(0)
    clock.advance(2.0)  # the queued text's caller has given up
    encoder.gate.set()
    assert (await first).shape == (1, 4)
    with pytest.raises(DeadlineExpired):
        await late
    assert (await in_time).shape == (1, 4)
    stop.set()
    await runner
    assert encoder.batches == [["occupies the model"], ["no deadline"]]
    assert dropped_for_deadline() == before + 1


async def test_bulk_slices_shrink_while_searches_are_recent() -> None:
    clock, encoder = ManualClock(), GatedEncoder()
    encoder.gate.set()
    batcher = Batcher(encoder, max_batch_size=8, max_wait_ms=0, max_queue_texts=10,
                      bulk_slice_ms=25, bulk_batch_ms=250, interactive_window_s=1.0,
                      clock=clock)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    await batcher.encode(["a search"], Priority.INTERACTIVE)
    stop.set()
    await runner
    searching = batcher._bulk_slice_chars(clock())
    clock.advance(1.5)  # past the interactive window, with no real time passing
    after = batcher._bulk_slice_chars(clock())
    assert searching * 10 == pytest.approx(after)  # 25 ms vs 250 ms of predicted encode


class ThreadRecordingEncoder(GatedEncoder):
    """Records the intra-op threads each batch was encoded with."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []
        self.runs: list[tuple[int, int]] = []

    def intra_op_threads(self, n: int) -> None:
        self.threads.append(n)

    def encode(self, texts: list[str]) -> Encoded:
        self.runs.append((len(texts), self.threads[-1] if self.threads else -1))
        return super().encode(texts)


async def test_a_lone_text_encodes_on_one_thread_and_a_full_batch_on_all() -> None:
    encoder = ThreadRecordingEncoder()
    batcher = Batcher(encoder, max_batch_size=8, max_wait_ms=0, max_queue_texts=20,
                      small_batch_texts=2)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    lone = asyncio.create_task(batcher.encode(["a lone search"]))
    while not batcher._busy_lanes():
        await asyncio.sleep(0)
    queued = asyncio.create_task(batcher.encode([f"text {i}" for i in range(5)]))
    await asyncio.sleep(0)
    encoder.gate.set()
    await lone
    await queued
    stop.set()
    await runner
    assert encoder.runs == [(1, 1), (5, 0)]  # 0: the thread's own (every) count


async def test_stop_wakes_an_idle_batch_loop_at_once() -> None:
    """The loop sleeps until a text arrives, a lane frees up or `run` is
    stopped: it does not poll, and stopping it is not a poll period late."""
    encoder = GatedEncoder()
    encoder.gate.set()
    batcher = Batcher(encoder, max_batch_size=8, max_wait_ms=0, max_queue_texts=10)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    assert (await batcher.encode(["one"])).shape == (1, 4)
    for _ in range(5):  # let the loop go back to sleep
        await asyncio.sleep(0)
    stop.set()
    await asyncio.wait_for(runner, timeout=0.1)


async def test_a_batch_waiting_for_max_wait_takes_texts_that_arrive_meanwhile() -> None:
    encoder = GatedEncoder()
    encoder.gate.set()
    batcher = Batcher(encoder, max_batch_size=3, max_wait_ms=2000, max_queue_texts=10)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    first = asyncio.create_task(batcher.encode(["a"]))
    await asyncio.sleep(0.01)
    rest = asyncio.create_task(batcher.encode(["b", "c"]))  # fills the batch: no 2 s wait
    await asyncio.wait_for(asyncio.gather(first, rest), timeout=1.0)
    stop.set()
    await asyncio.wait_for(runner, timeout=1.0)
    assert encoder.batches == [["a", "b", "c"]]
