"""Where a `memory_store` goes: latency through MCP and CPU per process.

Starts the embedded stack in a fresh data dir and stores distinct memories
one at a time through the MCP gateway, twice: with the whole stack, then with
the dreamer stopped (its passes run on the same cores). For each phase it
reports store p50/p95 and the CPU time each process (gateway, memory,
embedder, cortex, dreamer, coordination, Postgres, NATS) spent per store,
read from /proc. In the same run it measures a bare single-text encode
through the embedder's gRPC API at idle (before and after the stores; the
ratios use the faster), and that encode's embedder CPU; and the floor any
tool call pays, whatever it does: `memory_recent` (n=1) through MCP and the
memory service's `Recent` over gRPC (one small indexed read each).

Linux only (/proc); run with nothing else busy on the machine.
Writes evals/results/store-cpu-<timestamp>.json.
Run: .venv/bin/python -m evals.bench.store_cpu [--n 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram.v1 import embedder_pb2, embedder_pb2_grpc, memory_pb2, memory_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.grpc_client import open_channel
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.bench.mcp_latency import memories, summary
from evals.harness.benchlib import (
    command_line,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
)

RESULTS_DIR = results_dir()
TICKS = os.sysconf("SC_CLK_TCK")
WARMUP = 20
SETTLE_S = 10.0


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def _infra_pids(comm: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == comm:
                    pids.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return pids


def cpu_snapshot(stack: Stack) -> dict[str, float]:
    """CPU seconds so far per service, Postgres (all backends) and NATS."""
    snap = {name: _cpu_s(proc.pid) for name, proc in stack.procs.items()}
    snap["postgres"] = sum(_cpu_s(p) for p in _infra_pids("postgres"))
    snap["nats"] = sum(_cpu_s(p) for p in _infra_pids("nats-server"))
    return snap


async def store_phase(stack: Stack, client: Client, texts: list[tuple[str, list[str]]]) -> dict:
    for text, tags in texts[:WARMUP]:
        await client.call_tool("memory_store", {"text": text, "tags": tags, "source": "bench"})
    timed = texts[WARMUP:]
    before, latencies = cpu_snapshot(stack), []
    for text, tags in timed:
        started = time.perf_counter()
        result = await client.call_tool("memory_store",
                                        {"text": text, "tags": tags, "source": "bench"})
        latencies.append(time.perf_counter() - started)
        if result.is_error:
            raise RuntimeError(f"memory_store failed: {result.content}")
    await asyncio.sleep(2.0)  # let each store's aftermath (relay, consumers) finish
    after = cpu_snapshot(stack)
    per_store = {k: round((after[k] - before[k]) * 1000 / len(timed), 2) for k in before}
    return {"store": summary(latencies), "cpu_ms_per_store": per_store,
            "cpu_ms_per_store_total": round(sum(per_store.values()), 2)}


async def bare_encode(stack: Stack, n: int = 80) -> dict:
    port = stack.topology.services["embedder"].ports[8753]
    md = CallerContext(principal="bench", namespace="default").to_metadata(
        stack.secrets["ENGRAM_INTERNAL_TOKEN"])
    channel = open_channel(f"127.0.0.1:{port}")
    stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
    texts = [t for t, _ in memories(n + 10, seed=99)]
    latencies = []
    embedder_pid = stack.procs["embedder"].pid
    try:
        for text in texts[:10]:
            await stub.Embed(embedder_pb2.EmbedRequest(texts=[text]), metadata=md)
        cpu_before = _cpu_s(embedder_pid)
        for text in texts[10:]:
            started = time.perf_counter()
            await stub.Embed(embedder_pb2.EmbedRequest(
                texts=[text], kind=embedder_pb2.ENCODE_KIND_DOCUMENT), metadata=md)
            latencies.append(time.perf_counter() - started)
        cpu_after = _cpu_s(embedder_pid)
    finally:
        await channel.close()
    return {"encode": summary(latencies),
            "embedder_cpu_ms_per_encode": round((cpu_after - cpu_before) * 1000 / n, 2)}


async def call_floor(stack: Stack, client: Client, n: int = 100) -> dict:
    """p50 of the cheapest read through MCP (gateway, HTTP, the SDK client)
    and straight to the memory service over gRPC, one call at a time."""
    port = stack.topology.services["memory"].ports[8751]
    md = CallerContext(principal="bench", namespace="default").to_metadata(
        stack.secrets["ENGRAM_INTERNAL_TOKEN"])
    channel = open_channel(f"127.0.0.1:{port}")
    stub = memory_pb2_grpc.MemoryServiceStub(channel)
    mcp_s, grpc_s = [], []
    try:
        for i in range(n + 10):
            started = time.perf_counter()
            result = await client.call_tool("memory_recent", {"n": 1})
            mcp_dt = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(f"memory_recent failed: {result.content}")
            started = time.perf_counter()
            await stub.Recent(memory_pb2.RecentRequest(n=1), metadata=md)
            if i >= 10:
                mcp_s.append(mcp_dt)
                grpc_s.append(time.perf_counter() - started)
    finally:
        await channel.close()
    return {"mcp_memory_recent": summary(mcp_s), "grpc_memory_recent": summary(grpc_s)}


async def measure(stack: Stack, n: int) -> dict[str, Any]:
    texts = memories(2 * (n + WARMUP))
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {stack.first_token}"},
                              timeout=30.0)
    try:
        async with Client(streamable_http_client(stack.mcp_url, http_client=http)) as client:
            await asyncio.sleep(SETTLE_S)  # start-up work (first passes, sweeps) ends
            encode_before = await bare_encode(stack)
            floor = await call_floor(stack, client)
            full = await store_phase(stack, client, texts[: n + WARMUP])
            stack.stop_service("dreamer")
            quiet = await store_phase(stack, client, texts[n + WARMUP:])
            encode_after = await bare_encode(stack)
    finally:
        await http.aclose()
    p50 = min(encode_before["encode"]["p50_ms"], encode_after["encode"]["p50_ms"])
    return {"bare_encode_idle": {"before_stores": encode_before, "after_stores": encode_after,
                                 "p50_ms_used": p50},
            "call_floor": {**floor, "mcp_recent_p50_over_encode_p50": round(
                floor["mcp_memory_recent"]["p50_ms"] / p50, 3)},
            "full_stack": full, "dreamer_stopped": quiet,
            "store_over_encode_p50": {
                "full_stack": round(full["store"]["p50_ms"] / p50, 3),
                "dreamer_stopped": round(quiet["store"]["p50_ms"] / p50, 3)}}


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="timed stores per phase")
    parser.add_argument("--port-offset", type=int, default=300)
    args = parse_with_smoke(parser, {"n": 10})
    started_at = datetime.now(UTC)
    data_dir = Path(tempfile.mkdtemp(prefix="engram-bench-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        stack.start()
        measured = asyncio.run(measure(stack, args.n))
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    result = {"timestamp": started_at.isoformat(timespec="seconds"),
              "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count()},
              "n": args.n, **measured, "command": command_line()}
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"store-cpu-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    headline = {k: measured[k] for k in ("store_over_encode_p50", "call_floor")}
    sys.stdout.write(json.dumps(headline, indent=2) + f"\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
