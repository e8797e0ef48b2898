"""Embedder behaviour: concurrency correctness, priorities, deadlines,
backpressure, streaming, the vLLM backend and the embedding-space check."""

from __future__ import annotations

import asyncio
import random
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import httpx
import numpy as np
import pytest

from engram.v1 import embedder_pb2 as pb
from engram.v1 import embedder_pb2_grpc
from engram_embedder.backend import Encoded, SentenceTransformerBackend
from engram_embedder.batcher import Batcher, DeadlineExpired, Priority, QueueFull
from engram_kit.context import CallerContext
from engram_kit.embedder_client import vectors_of
from engram_runner.stack import Stack

from ..procs import service_process, start_fake

WORDS = ["alpha", "beta", "gamma", "delta", "memory", "vector", "namespace", "graph", "lease",
         "outbox", "stream"]


@pytest.fixture(scope="module")
def reference() -> SentenceTransformerBackend:
    """The real packaged model in-process: ground truth for vector checks."""
    return SentenceTransformerBackend("", "cpu")


def _metadata(stack: Stack) -> tuple:
    return CallerContext(principal="t", namespace="default").to_metadata(
        stack.secrets["ENGRAM_INTERNAL_TOKEN"])


def _text(rng: random.Random, i: int) -> str:
    return f"request {i}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 60)))


async def test_200_concurrent_mixed_requests_get_their_own_vectors(stack: Stack, reference):
    rng = random.Random(7)
    requests = [[_text(rng, i * 10 + j) for j in range(rng.randint(1, 5))] for i in range(200)]
    port = stack.topology.services["embedder"].ports[8753]
    md = _metadata(stack)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
        replies = await asyncio.gather(*(
            stub.Embed(pb.EmbedRequest(
                texts=texts, priority=pb.EMBED_PRIORITY_BULK if i % 3 else
                pb.EMBED_PRIORITY_INTERACTIVE), metadata=md, timeout=120)
            for i, texts in enumerate(requests)))
    for texts, reply in zip(requests, replies, strict=True):
        got = vectors_of(reply)
        want = reference.encode(texts).vectors
        assert got.shape == want.shape
        assert np.min(np.sum(got * want, axis=1)) > 0.999


async def test_interactive_overtakes_bulk(reference):
    batcher = Batcher(reference, max_batch_size=8, max_wait_ms=1, max_queue_texts=1000)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    finished: dict[str, float] = {}

    async def timed(name: str, texts: list[str], priority: Priority) -> None:
        await batcher.encode(texts, priority)
        finished[name] = time.monotonic()

    bulk = asyncio.create_task(timed("bulk", [f"bulk text {i}" for i in range(160)],
                                     Priority.BULK))
    await asyncio.sleep(0.05)
    await timed("interactive", ["where is the staging database?"], Priority.INTERACTIVE)
    await bulk
    stop.set()
    await runner
    assert finished["interactive"] < finished["bulk"]


def test_lanes_encode_at_once_and_get_the_models_own_vectors(reference):
    """Lanes call one backend from several threads at once (the service's
    default). Every call must give the vectors sentence-transformers' own
    encode gives, and its own token count: the tokenizer is one mutable
    object, and a lane whose padding settings another lane changed mid-call
    once failed its whole batch (the callers got INTERNAL; in this test's
    shape, about one call in four failed)."""
    rng = random.Random(3)
    batches = [[_text(rng, i * 10 + j) for j in range(rng.randint(1, 4))] for i in range(40)]
    expected = [(reference._st.encode(b, normalize_embeddings=True, convert_to_numpy=True),
                 sum(len(ids) for ids in reference._st.tokenizer(
                     b, truncation=True, max_length=reference._st.max_seq_length)["input_ids"]))
                for b in batches]
    until = time.monotonic() + 4.0

    def lane(offset: int) -> int:
        calls = 0
        while time.monotonic() < until:
            i = (offset + calls) % len(batches)
            got = reference.encode(batches[i])
            vectors, tokens = expected[i]
            assert got.vectors.shape == vectors.shape
            assert np.max(np.abs(got.vectors - vectors)) < 1e-5
            assert got.tokens == tokens
            calls += 1
        return calls

    with ThreadPoolExecutor(3) as lanes:
        calls = list(lanes.map(lane, (0, 13, 27)))
    assert min(calls) > 10, calls


async def test_side_lane_serves_interactive_during_a_bulk_batch(reference):
    """One bulk batch that takes seconds: an interactive text arriving during
    it is answered beside it (side lane), long before it ends, with the same
    vector the model gives on its own."""
    model, side = ThreadPoolExecutor(1), ThreadPoolExecutor(1)
    batcher = Batcher(reference, max_batch_size=256, max_wait_ms=0, max_queue_texts=1000,
                      model_thread=model, side_lanes=[side])
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    long_texts = [" ".join(["the staging database moved to another region"] * 20) + str(i)
                  for i in range(96)]
    bulk_started = time.monotonic()
    bulk = asyncio.create_task(batcher.encode(long_texts, Priority.BULK))
    await asyncio.sleep(0.2)
    assert not bulk.done(), "the bulk batch should still be encoding"
    question = "where is the staging database?"
    got = await batcher.encode([question], Priority.INTERACTIVE)
    answered = time.monotonic()
    assert not bulk.done(), "answered beside the bulk batch, not after it"
    vectors = await bulk
    stop.set()
    await runner
    await asyncio.get_running_loop().run_in_executor(model, reference.intra_op_threads, 0)
    assert answered - bulk_started < 0.2 + 1.0
    assert float(np.dot(got[0], reference.encode([question]).vectors[0])) > 0.999
    assert float(np.dot(vectors[5], reference.encode([long_texts[5]]).vectors[0])) > 0.999


async def _answered_during(reference, waiting: list[str], side_batch_min: int) -> bool:
    """Whether `waiting` (interactive) is answered while a long interactive
    batch is still encoding; checks both sides' vectors against the model."""
    model, side = ThreadPoolExecutor(1), ThreadPoolExecutor(1)
    batcher = Batcher(reference, max_batch_size=256, max_wait_ms=0, max_queue_texts=1000,
                      model_thread=model, side_lanes=[side], side_batch_min=side_batch_min)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    long_texts = [" ".join(["the staging database moved to another region"] * 20) + str(i)
                  for i in range(96)]
    first = asyncio.create_task(batcher.encode(long_texts, Priority.INTERACTIVE))
    await asyncio.sleep(0.2)
    assert not first.done(), "the first batch should still be encoding"
    got = await batcher.encode(waiting, Priority.INTERACTIVE)
    during = not first.done()
    vectors = await first
    stop.set()
    await runner
    for lane in (model, side):
        await asyncio.get_running_loop().run_in_executor(lane, reference.intra_op_threads, 0)
    want = reference.encode(waiting).vectors
    assert float(np.min(np.sum(got * want, axis=1))) > 0.999
    assert float(np.dot(vectors[7], reference.encode([long_texts[7]]).vectors[0])) > 0.999
    return during


async def test_enough_waiting_searches_take_the_side_lane(reference):
    """Under interactive load a second batch runs beside the first once
    `side_batch_min` texts wait; fewer wait for the model (a lane for one
    text beside a batch would slow both)."""
    questions = [f"where is staging database {i}?" for i in range(4)]
    assert await _answered_during(reference, questions, side_batch_min=4)
    assert not await _answered_during(reference, questions[:1], side_batch_min=4)


class _FailsOnce:
    """The real model, except that its first batch fails (a backend error)."""

    def __init__(self, inner: SentenceTransformerBackend) -> None:
        self.inner, self.name, self.model = inner, inner.name, inner.model
        self.dimension, self.normalized = inner.dimension, inner.normalized
        self.failed, self.encoded = False, 0

    def encode(self, texts: list[str]) -> Encoded:
        if not self.failed:
            self.failed = True
            raise RuntimeError("backend failed")
        self.encoded += len(texts)
        return self.inner.encode(texts)

    def intra_op_threads(self, n: int) -> None:
        self.inner.intra_op_threads(n)

    def close(self) -> None:
        """The wrapped model is the module's shared reference, not this wrapper's to close."""


async def test_a_failed_batch_drops_the_rest_of_its_request(reference):
    backend = _FailsOnce(reference)
    batcher = Batcher(backend, max_batch_size=4, max_wait_ms=0, max_queue_texts=1000)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    with pytest.raises(RuntimeError, match="backend failed"):
        await batcher.encode([f"text {i}" for i in range(12)])
    ok = await batcher.encode(["after the failure"])
    stop.set()
    await runner
    assert backend.encoded == 1, "the failed request's other 8 texts were not encoded"
    assert float(np.dot(ok[0], reference.encode(["after the failure"]).vectors[0])) > 0.999


async def test_queue_bound_and_deadlines_in_process(reference):
    batcher = Batcher(reference, max_batch_size=64, max_wait_ms=1, max_queue_texts=4)
    with pytest.raises(QueueFull, match="limit 4"):
        await batcher.encode(["a"] * 5)
    stop = asyncio.Event()
    runner = asyncio.create_task(batcher.run(stop))
    with pytest.raises(DeadlineExpired):
        await batcher.encode(["too late"], deadline=time.monotonic() - 1)
    ok = await batcher.encode(["in time"], deadline=time.monotonic() + 30)
    stop.set()
    await runner
    assert ok.shape == (1, 384)


@pytest.fixture(scope="module")
def slow_embedder(stack: Stack, tmp_path_factory: pytest.TempPathFactory):
    """A real embedder process whose batches wait 3 s and whose queue holds 8."""
    overrides = {"ENGRAM_MAX_QUEUE_TEXTS": "8", "ENGRAM_MAX_WAIT_MS": "3000"}
    with service_process(stack, "embedder", overrides, tmp_path_factory.mktemp("logs")) as p:
        yield p


async def test_queue_full_is_resource_exhausted_with_retry_hint(stack: Stack, slow_embedder):
    md = _metadata(stack)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{slow_embedder['grpc']}") as channel:
        stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
        waiting = asyncio.ensure_future(
            stub.Embed(pb.EmbedRequest(texts=["x"] * 6), metadata=md, timeout=30))
        await asyncio.sleep(0.3)
        call = stub.Embed(pb.EmbedRequest(texts=["y"] * 4), metadata=md, timeout=30)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call
        trailing = dict(await call.trailing_metadata())
        assert (await waiting).count == 6
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "limit 8" in (err.value.details() or "")
    assert int(trailing["retry-after-ms"]) > 0


async def test_expired_requests_are_dropped_before_encoding(stack: Stack, slow_embedder):
    md = _metadata(stack)
    metrics_url = f"http://127.0.0.1:{slow_embedder['http']}/metrics"

    def expired() -> float:
        text = httpx.get(metrics_url).text
        found = re.findall(r'^engram_embedder_dropped_total\{reason="\w+"\} (\S+)$', text, re.M)
        return sum(float(v) for v in found)

    before = expired()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{slow_embedder['grpc']}") as channel:
        stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.Embed(pb.EmbedRequest(texts=["late"]), metadata=md, timeout=0.5)
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # The batch closes after its 3 s wait; the expired text is dropped then.
    deadline = time.monotonic() + 30
    while expired() != before + 1 and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert expired() == before + 1


async def test_stream_returns_one_reply_per_chunk_in_order(stack: Stack, reference):
    port = stack.topology.services["embedder"].ports[8753]
    chunks = [[f"chunk {c} text {i}" for i in range(50)] for c in range(4)]

    async def requests():
        for chunk in chunks:
            yield pb.EmbedRequest(texts=chunk, priority=pb.EMBED_PRIORITY_BULK)

    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
        replies = [r async for r in stub.EmbedStream(requests(), metadata=_metadata(stack),
                                                     timeout=60)]
    assert len(replies) == 4
    for chunk, reply in zip(chunks, replies, strict=True):
        got = vectors_of(reply)
        assert np.min(np.sum(got * reference.encode(chunk).vectors, axis=1)) > 0.999


async def test_vllm_backend_over_the_openai_protocol(stack: Stack, reference, tmp_path: Path):
    fake, port = start_fake("fake_vllm", ["minilm"], tmp_path)
    try:
        overrides = {"ENGRAM_BACKEND": "vllm", "ENGRAM_VLLM_URL": f"http://127.0.0.1:{port}",
                     "ENGRAM_MODEL_NAME": "minilm"}
        for _ in range(300):
            try:
                httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except httpx.HTTPError:
                await asyncio.sleep(0.1)
        with service_process(stack, "embedder", overrides, tmp_path) as p:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{p['grpc']}") as channel:
                stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
                info = await stub.Info(pb.InfoRequest(), metadata=_metadata(stack), timeout=5)
                texts = ["the vault is blue", "leases carry fencing tokens"]
                reply = await stub.Embed(pb.EmbedRequest(texts=texts),
                                         metadata=_metadata(stack), timeout=30)
    finally:
        fake.terminate()
        fake.wait(10)
    assert (info.backend, info.model, info.dimension) == ("vllm", "minilm", 384)
    got = vectors_of(reply)
    assert np.min(np.sum(got * reference.encode(texts).vectors, axis=1)) > 0.999


def test_memory_refuses_an_embedder_of_another_space(stack: Stack, tmp_path: Path):
    overrides = {"ENGRAM_EMBEDDING_MODEL": "intfloat/e5-large-v2"}
    with service_process(stack, "memory", overrides, tmp_path, wait_ready=False) as p:
        code = p["proc"].wait(60)
    log = next(tmp_path.glob("memory-*.log")).read_text()
    assert code != 0
    assert "refusing to mix embedding spaces" in log
