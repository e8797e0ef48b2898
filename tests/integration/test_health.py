"""Every service answers liveness, readiness, metrics and gRPC health; gRPC
refuses calls without the internal credential; unbuilt RPCs say so."""

from __future__ import annotations

from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engram.v1 import dreamer_pb2, dreamer_pb2_grpc, memory_pb2, memory_pb2_grpc
from engram_kit.context import CallerContext
from engram_runner.stack import Stack

from ..procs import service_process

SERVICES = ["gateway", "memory", "cortex", "embedder", "dreamer", "coordination"]
GRPC_SERVICES = {"memory": 8751, "cortex": 8752, "embedder": 8753, "dreamer": 8754,
                 "coordination": 8755}


@pytest.mark.parametrize("name", SERVICES)
def test_health_ready_and_metrics(stack: Stack, name: str):
    ready_url = stack.topology.services[name].ready_url
    base = ready_url.rsplit("/", 1)[0]
    assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200
    ready = httpx.get(ready_url, timeout=5)
    assert ready.status_code == 200 and ready.json()["ready"] is True
    metrics = httpx.get(f"{base}/metrics", timeout=5)
    assert metrics.status_code == 200
    assert "engram_" in metrics.text


def _address(stack: Stack, name: str) -> str:
    return f"127.0.0.1:{stack.topology.services[name].ports[GRPC_SERVICES[name]]}"


@pytest.mark.parametrize("name", sorted(GRPC_SERVICES))
async def test_grpc_health_serving(stack: Stack, name: str):
    async with grpc.aio.insecure_channel(_address(stack, name)) as channel:
        # typeshed's HealthStub declares none of the methods its __init__ sets
        reply = await health_pb2_grpc.HealthStub(channel).Check(  # pyright: ignore[reportAttributeAccessIssue]
            health_pb2.HealthCheckRequest(service=name), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_grpc_without_internal_credential_is_refused(stack: Stack):
    async with grpc.aio.insecure_channel(_address(stack, "memory")) as channel:
        stub = memory_pb2_grpc.MemoryServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.Search(memory_pb2.SearchRequest(query="x"), timeout=5,
                              metadata=(("x-engram-namespace", "default"),))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.Search(memory_pb2.SearchRequest(query="x"), timeout=5, metadata=(
                ("x-engram-internal-token", "wrong"), ("x-engram-namespace", "default")))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_grpc_requires_a_namespace(stack: Stack):
    token = stack.secrets["ENGRAM_INTERNAL_TOKEN"]
    async with grpc.aio.insecure_channel(_address(stack, "memory")) as channel:
        stub = memory_pb2_grpc.MemoryServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.Search(memory_pb2.SearchRequest(query="x"), timeout=5,
                              metadata=CallerContext(principal="t").to_metadata(token))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "namespace is required" in (err.value.details() or "")


async def test_no_extractor_is_said_plainly(stack: Stack, tmp_path: Path):
    """With ENGRAM_EXTRACTOR=none nothing pretends to consolidate: a pass is
    refused with UNIMPLEMENTED and the reason, and /health says none."""
    token = stack.secrets["ENGRAM_INTERNAL_TOKEN"]
    ctx = CallerContext(principal="t", namespace="default")
    overrides = {"ENGRAM_EXTRACTOR": "none", "ENGRAM_CONSUMER_DURABLE": "dreamer-none"}
    with service_process(stack, "dreamer", overrides, tmp_path) as proc:
        health = httpx.get(f"http://127.0.0.1:{proc['http']}/health", timeout=5).json()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{proc['grpc']}") as channel:
            stub = dreamer_pb2_grpc.DreamerServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Run(dreamer_pb2.DreamRunRequest(), timeout=5,
                               metadata=ctx.to_metadata(token))
    assert health["extractor"] == "none"
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "no extractor is configured" in (err.value.details() or "")
