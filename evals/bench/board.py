"""Agent-board throughput and latency: N simulated agents for D seconds,
first straight to the coordination service over gRPC (the baseline), then
through the gateway with one official MCP client per agent.

Every agent runs the same closed loop: claim a lease from a small shared pool
(no queueing, ttl 5 s); when granted, renew it once and release it; send a
message to a random peer (paced to stay under the 60 sends/minute limit);
receive its pending mail and ack it. Each operation is timed on its own.

Usage: .venv/bin/python -m evals.bench.board [--agents 50] [--seconds 60]
Writes evals/results/board-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram.v1 import coordination_pb2 as pb
from engram.v1 import coordination_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.errors import DomainError
from engram_kit.grpc_client import Caller, open_channel
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.harness.benchlib import (
    command_line,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
    tool_text,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = results_dir()
LEASES = [f"resource-{i}" for i in range(10)]
SEND_INTERVAL_S = 1.1  # 60 sends/minute/agent is the service limit
OPS = ("claim", "renew", "release", "send", "receive", "ack")

Op = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def grpc_ops(stub: Any, caller: Caller, ctx: CallerContext) -> Op:
    """Board operations straight to the service; replies as plain dicts."""
    async def op(name: str, a: dict[str, Any]) -> dict[str, Any]:
        if name == "claim":
            r = await caller.call(stub.ClaimLease, pb.ClaimLeaseRequest(
                name=a["name"], ttl_seconds=5, no_queue=True), ctx)
            return {"granted": r.granted}
        if name in ("renew", "release"):
            method = stub.RenewLease if name == "renew" else stub.ReleaseLease
            await caller.call(method, pb.LeaseRequest(name=a["name"], ttl_seconds=5), ctx)
            return {}
        if name == "send":
            await caller.call(stub.SendMessage, pb.SendMessageRequest(to=a["to"],
                                                                      text=a["text"]), ctx)
            return {}
        if name == "receive":
            r = await caller.call(stub.ReceiveMessages, pb.ReceiveMessagesRequest(limit=20),
                                  ctx)
            return {"ids": [m.id for m in r.messages]}
        await caller.call(stub.AckMessages, pb.AckMessagesRequest(ids=a["ids"]), ctx)
        return {}
    return op


def mcp_ops(client: Client) -> Op:
    tools = {"claim": ("board_lease", "claim"), "renew": ("board_lease", "renew"),
             "release": ("board_lease", "release"), "send": ("board_message", "send"),
             "receive": ("board_message", "receive"), "ack": ("board_message", "ack")}

    async def op(name: str, a: dict[str, Any]) -> dict[str, Any]:
        tool, action = tools[name]
        args = {"action": action, **a}
        if name in ("claim", "renew"):
            args |= {"ttl_seconds": 5, "queue": False} if name == "claim" else {"ttl_seconds": 5}
        if name == "receive":
            args["limit"] = 20
        result = await client.call_tool(tool, args)
        if result.is_error:
            raise DomainError(tool_text(result))
        reply = result.structured_content or json.loads(tool_text(result))
        if name == "receive":
            return {"ids": [m["id"] for m in reply["messages"]]}
        return reply
    return op


async def agent_loop(op: Op, peers: list[str], me: str, deadline: float, seed: int,
                     timings: dict[str, list[float]], errors: Counter) -> None:
    rng = random.Random(seed)
    next_send = time.monotonic() + rng.random() * SEND_INTERVAL_S

    async def timed(name: str, args: dict[str, Any]) -> dict[str, Any] | None:
        t0 = time.perf_counter()
        try:
            reply = await op(name, args)
        except DomainError as exc:
            errors[f"{name}: {exc.message[:60]}"] += 1
            return None
        timings[name].append(time.perf_counter() - t0)
        return reply

    while time.monotonic() < deadline:
        lease = rng.choice(LEASES)
        got = await timed("claim", {"name": lease})
        if got and got.get("granted"):
            await timed("renew", {"name": lease})
            await timed("release", {"name": lease})
        if time.monotonic() >= next_send:
            target = rng.choice([p for p in peers if p != me])
            await timed("send", {"to": target, "text": f"{me} is done with {lease}"})
            next_send += SEND_INTERVAL_S
        inbox = await timed("receive", {})
        if inbox and inbox["ids"]:
            await timed("ack", {"ids": inbox["ids"]})


def report(timings: dict[str, list[float]], errors: Counter, seconds: float) -> dict[str, Any]:
    ops: dict[str, Any] = {}
    for name in OPS:
        ms = sorted(t * 1000 for t in timings[name])
        if len(ms) < 2:
            ops[name] = {"count": len(ms)}
            continue
        ops[name] = {"count": len(ms), "per_s": round(len(ms) / seconds, 1),
                     "p50_ms": round(statistics.median(ms), 2),
                     "p95_ms": round(statistics.quantiles(ms, n=100)[94], 2)}
    total = sum(len(v) for v in timings.values())
    return {"ops": ops, "total_ops": total, "total_per_s": round(total / seconds, 1),
            "errors": dict(errors)}


async def run_phase(make_op: Callable[[int, AsyncExitStack], Awaitable[tuple[Op, str]]],
                    agents: int, seconds: float) -> dict[str, Any]:
    timings: dict[str, list[float]] = {k: [] for k in OPS}
    errors: Counter = Counter()
    async with AsyncExitStack() as es:
        pairs = [await make_op(i, es) for i in range(agents)]
        ids = [agent_id for _, agent_id in pairs]
        deadline = time.monotonic() + seconds
        started = time.perf_counter()
        await asyncio.gather(*[agent_loop(op, ids, me, deadline, i, timings, errors)
                               for i, (op, me) in enumerate(pairs)])
        elapsed = time.perf_counter() - started
    return {"agents": agents, "seconds": round(elapsed, 1), **report(timings, errors, elapsed)}


async def measure(stack: Stack, agents: int, seconds: float) -> dict[str, Any]:
    port = stack.topology.services["coordination"].ports[8755]
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=30.0)
    channel = open_channel(f"127.0.0.1:{port}")
    stub = coordination_pb2_grpc.CoordinationServiceStub(channel)

    async def grpc_agent(i: int, es: AsyncExitStack) -> tuple[Op, str]:
        ctx = CallerContext(principal="grpcbench", namespace="default", session_id=f"g{i}")
        op = grpc_ops(stub, caller, ctx)
        me = await caller.call(stub.ListAgents, pb.ListAgentsRequest(), ctx)
        return op, me.self.id

    async def mcp_agent(i: int, es: AsyncExitStack) -> tuple[Op, str]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {stack.first_token}",
                                           "X-Engram-Session": f"m{i}"}, timeout=60.0)
        client = await es.enter_async_context(
            Client(streamable_http_client(stack.mcp_url, http_client=http)))
        result = await client.call_tool("board_agents", {"action": "list"})
        reply = result.structured_content or json.loads(tool_text(result))
        return mcp_ops(client), reply["self"]["id"]

    try:
        grpc_result = await run_phase(grpc_agent, agents, seconds)
        mcp_result = await run_phase(mcp_agent, agents, seconds)
    finally:
        await channel.close()
    ratios = {}
    for name in OPS:
        g, m = grpc_result["ops"][name], mcp_result["ops"][name]
        if "p95_ms" in g and "p95_ms" in m:
            ratios[f"{name}_p95_mcp_over_grpc"] = round(m["p95_ms"] / g["p95_ms"], 2)
    ratios["throughput_grpc_over_mcp"] = round(
        grpc_result["total_per_s"] / max(mcp_result["total_per_s"], 0.1), 2)
    return {"grpc_direct": grpc_result, "mcp": mcp_result, "ratios": ratios}


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0, help="per phase")
    parser.add_argument("--port-offset", type=int, default=700)
    args = parse_with_smoke(parser, {"agents": 3, "seconds": 5.0})
    started_at = datetime.now(UTC)
    load_at_start = os.getloadavg()[0]
    data_dir = Path(tempfile.mkdtemp(prefix="engram-board-bench-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        stack.start()
        measured = asyncio.run(measure(stack, args.agents, args.seconds))
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    result = {
        "timestamp": started_at.isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": platform.python_version(),
                    "loadavg_1m_at_start": round(load_at_start, 2),
                    "loadavg_1m_at_end": round(os.getloadavg()[0], 2),
                    "note": "load generator, gateway, service and Postgres share the CPUs"},
        "loop": {"leases": len(LEASES), "lease_ttl_s": 5,
                 "send_interval_s": SEND_INTERVAL_S, "receive_limit": 20},
        **measured,
        "command": command_line(),
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"board-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    for phase in ("grpc_direct", "mcp"):
        r = result[phase]
        line = " ".join(f"{k} {v.get('per_s', 0)}/s p95 {v.get('p95_ms', '-')}ms"
                        for k, v in r["ops"].items())
        sys.stdout.write(f"{phase}: {r['total_per_s']} ops/s | {line} | errors {r['errors']}\n")
    sys.stdout.write(f"ratios {result['ratios']}\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
