"""The embedder serves the packaged model and batches concurrent callers."""

from __future__ import annotations

import asyncio
import re

import grpc
import httpx
import numpy as np
import pytest

from engram.v1 import embedder_pb2, embedder_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.embedder_client import vectors_of
from engram_kit.grpc_client import Caller, open_channel
from engram_runner.stack import Stack


def _batch_count(stack: Stack) -> float:
    url = stack.topology.services["embedder"].ready_url.replace("/readyz", "/metrics")
    text = httpx.get(url, timeout=5).text
    match = re.search(r"^engram_embedder_batch_size_count (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


async def test_info_and_concurrent_requests_share_batches(stack: Stack):
    port = stack.topology.services["embedder"].ports[8753]
    md = CallerContext(principal="t", namespace="default").to_metadata(
        stack.secrets["ENGRAM_INTERNAL_TOKEN"])
    before = _batch_count(stack)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
        info = await stub.Info(embedder_pb2.InfoRequest(), metadata=md, timeout=5)
        texts = [f"sentence number {i} about topic {i % 5}" for i in range(32)]
        replies = await asyncio.gather(*(
            stub.Embed(embedder_pb2.EmbedRequest(texts=[t]), metadata=md, timeout=30)
            for t in texts))
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.Embed(embedder_pb2.EmbedRequest(texts=[]), metadata=md, timeout=5)
    assert info.dimension == 384 and info.model.endswith("all-MiniLM-L6-v2")
    assert info.backend == "sentence-transformers" and info.normalized
    vectors = [vectors_of(r)[0] for r in replies]
    assert all(v.shape == (384,) for v in vectors)
    assert abs(float(np.linalg.norm(vectors[0])) - 1.0) < 1e-3
    batches = _batch_count(stack) - before
    assert 1 <= batches < 32, f"32 concurrent requests ran in {batches} batches"
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_identical_queries_share_one_encode(stack: Stack):
    """Concurrent identical query embeddings (a search fanning out to memory and
    cortex) are encoded once and are bit-identical; documents are never shared."""
    port = stack.topology.services["embedder"].ports[8753]
    stub = embedder_pb2_grpc.EmbedderServiceStub(open_channel(f"127.0.0.1:{port}"))
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"])
    ctx = CallerContext(principal="t", namespace="default")
    text = f"which database does the shared-query check use {id(stack)}"

    def shared() -> float:
        metrics = httpx.get(stack.topology.services["embedder"].ready_url.replace(
            "/readyz", "/metrics"), timeout=5).text
        return sum(float(line.split()[-1]) for line in metrics.splitlines()
                   if line.startswith("engram_embedder_query_shared_total{"))

    before = shared()
    replies = await asyncio.gather(*[caller.call(stub.Embed, embedder_pb2.EmbedRequest(
        texts=[text], kind=embedder_pb2.ENCODE_KIND_QUERY), ctx) for _ in range(4)])
    assert len({r.vectors_f32le for r in replies}) == 1
    assert shared() - before == 3
    # Another tenant's identical query is encoded afresh: a cached answer is
    # faster, so its latency would tell that tenant what "default" searched.
    other = CallerContext(principal="u", namespace="other")
    query = embedder_pb2.EmbedRequest(texts=[text], kind=embedder_pb2.ENCODE_KIND_QUERY)
    before = shared()
    first = await caller.call(stub.Embed, query, other)
    assert shared() - before == 0, "a query was answered from another namespace's cache"
    again = await caller.call(stub.Embed, query, other)
    assert shared() - before == 1 and again.vectors_f32le == first.vectors_f32le
