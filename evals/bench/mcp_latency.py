"""End-to-end latency of the MCP tools, with a direct-gRPC baseline in the same run.

Starts the embedded stack (the same `Stack` that `engram up` drives) in a fresh
temporary data directory, times the cold start, then times N `memory_store`
and N `memory_search` calls through the official MCP SDK client over streamable
HTTP, and N `MemoryService.Store` / `MemoryService.Search` calls made directly
to the memory service over gRPC. MCP and gRPC calls are interleaved one by one,
so both paths see the same table size. The ratio of the p50s is the cost of the
gateway (HTTP, bearer auth, MCP framing, validation, reply shaping).

Usage: .venv/bin/python -m evals.bench.mcp_latency [--n 200] [--port-offset 300]
Writes evals/results/mcp-latency-<UTC timestamp>.json.
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram.v1 import memory_pb2, memory_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.grpc_client import Caller, open_channel
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.harness.benchlib import (
    command_line,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
    tool_call,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = results_dir()
WARMUP = 5  # untimed calls per path and tool before measuring

# Material for distinct, realistic memories of the kind an agent stores.
PROJECTS = ["billing-api", "search-indexer", "mobile-app", "auth-service", "data-pipeline",
            "docs-site", "payments-worker", "ml-feature-store", "admin-dashboard", "edge-proxy",
            "notification-hub", "inventory-sync"]
FACTS = [
    ("database", "uses {x} as its primary database", ["PostgreSQL 16", "MySQL 8", "SQLite",
     "CockroachDB", "DynamoDB"]),
    ("ci", "runs CI on {x}", ["GitHub Actions", "GitLab CI", "Buildkite", "Jenkins",
     "CircleCI"]),
    ("deploy", "is deployed with {x}", ["Helm to the staging cluster", "a blue-green script",
     "Fly.io machines", "Terraform and ECS", "a nightly Ansible run"]),
    ("style", "follows the rule: {x}", ["no print statements, use the logger",
     "every public function has a docstring", "imports sorted by ruff",
     "SQL lives in .sql files, not strings", "feature flags expire after 90 days"]),
    ("owner", "is owned by {x}", ["Priya (platform team)", "Marco (payments)",
     "the data team, on-call rota in PagerDuty", "Lena, who reviews all schema changes",
     "Tomasz; ask him before touching migrations"]),
    ("test", "needs {x} before its tests pass", ["a running Redis on port 6380",
     "the fixtures downloaded with make fixtures", "TZ=UTC in the environment",
     "Docker for the integration suite", "the feature flag NEW_LEDGER=1"]),
    ("incident", "had an incident caused by {x}", ["an unbounded retry loop against the bank API",
     "a missing index on orders.created_at", "a certificate that expired over the weekend",
     "a config change that disabled rate limits", "a queue consumer that acked before commit"]),
    ("preference", "should prefer {x}", ["small pull requests under 400 lines",
     "structured JSON logs over plain text", "explicit timeouts on every HTTP call",
     "pydantic models at the API boundary", "squash merges with a descriptive title"]),
]
WHEN = ["in March", "after the Q2 review", "last sprint", "on 2025-11-04", "during the migration",
        "at the architecture sync", "after the outage", "in the kickoff meeting"]
WHY = ["because latency doubled under load", "to cut cloud costs", "after a security review",
       "since the old setup kept flaking", "at the customer's request",
       "to match the rest of the platform", "because on-call asked for it", ""]
QUESTIONS = {
    "database": "which database does {p} use?",
    "ci": "where does CI for {p} run?",
    "deploy": "how is {p} deployed?",
    "style": "what code style rules apply to {p}?",
    "owner": "who owns {p}?",
    "test": "what does {p} need before the tests pass?",
    "incident": "what caused the last incident in {p}?",
    "preference": "what does the team prefer for {p}?",
}


def memories(count: int, seed: int = 7) -> list[tuple[str, list[str]]]:
    """`count` distinct memory texts with tags, deterministic for a seed."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[tuple[str, list[str]]] = []
    while len(out) < count:
        project = rng.choice(PROJECTS)
        kind, template, values = rng.choice(FACTS)
        why = rng.choice(WHY)
        text = (f"The {project} project {template.format(x=rng.choice(values))}; "
                f"agreed {rng.choice(WHEN)}{' ' + why if why else ''}.")
        if text in seen:
            continue
        seen.add(text)
        out.append((text, [f"project.{project}", f"kind.{kind}"]))
    return out


def queries(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [QUESTIONS[rng.choice(list(QUESTIONS))].format(p=rng.choice(PROJECTS))
            for _ in range(count)]


def summary(samples_s: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in samples_s]
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50_ms": round(statistics.median(ms), 3), "p95_ms": round(cuts[94], 3),
            "mean_ms": round(statistics.fmean(ms), 3)}


async def measure(stack: Stack, n: int) -> dict[str, Any]:
    token = stack.first_token
    if not token:
        raise RuntimeError("no agent token minted: the data dir was not fresh")
    texts = memories(2 * (n + WARMUP))
    mcp_texts, grpc_texts = texts[0::2], texts[1::2]
    qs = queries(n + WARMUP)
    grpc_addr = f"127.0.0.1:{stack.topology.services['memory'].ports[8751]}"
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=30.0)
    ctx = CallerContext(principal="bench", namespace="default")
    timings: dict[str, list[float]] = {k: [] for k in ("mcp_store", "mcp_search",
                                                       "grpc_store", "grpc_search")}
    findings: dict[str, Counter] = {"mcp": Counter(), "grpc": Counter()}
    modes: dict[str, Counter] = {"mcp": Counter(), "grpc": Counter()}
    unembedded = {"mcp": 0, "grpc": 0}  # stored without vector (embedder timed out)

    mcp_call = tool_call

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30.0)
    channel = open_channel(grpc_addr)
    stub = memory_pb2_grpc.MemoryServiceStub(channel)
    try:
        async with Client(streamable_http_client(stack.mcp_url, http_client=http)) as client:
            for i in range(n + WARMUP):
                timed = i >= WARMUP
                text, tags = mcp_texts[i]
                t0 = time.perf_counter()
                reply = await mcp_call(client, "memory_store",
                                       {"text": text, "tags": tags, "source": "bench"})
                dt = time.perf_counter() - t0
                if timed:
                    timings["mcp_store"].append(dt)
                    findings["mcp"][reply["finding"]] += 1
                    unembedded["mcp"] += not reply["embedded"]

                text, tags = grpc_texts[i]
                req = memory_pb2.StoreRequest(text=text, tags=tags, source="bench",
                                              origin="agent")
                t0 = time.perf_counter()
                resp = await caller.call(stub.Store, req, ctx)
                dt = time.perf_counter() - t0
                if timed:
                    timings["grpc_store"].append(dt)
                    name = memory_pb2.Finding.Name(resp.finding).removeprefix("FINDING_")
                    findings["grpc"][name.lower()] += 1
                    unembedded["grpc"] += not resp.embedded

            for i, query in enumerate(qs):
                timed = i >= WARMUP
                t0 = time.perf_counter()
                # Each call's query is unique (a numbered suffix), so the embedder's
                # short query cache never answers from an earlier call; the two
                # halves of one MCP search (memory, cortex) still share an encode.
                reply = await mcp_call(client, "memory_search",
                                       {"query": f"{query} (m{i})", "top_k": 5})
                dt = time.perf_counter() - t0
                if timed:
                    timings["mcp_search"].append(dt)
                    modes["mcp"][reply["mode"]] += 1

                req = memory_pb2.SearchRequest(query=f"{query} (g{i})", top_k=5)
                t0 = time.perf_counter()
                resp = await caller.call(stub.Search, req, ctx, idempotent=True)
                dt = time.perf_counter() - t0
                if timed:
                    timings["grpc_search"].append(dt)
                    modes["grpc"][resp.mode] += 1
    finally:
        await channel.close()
        await http.aclose()

    mcp = {"store": summary(timings["mcp_store"]), "search": summary(timings["mcp_search"])}
    grpc_direct = {"store": summary(timings["grpc_store"]),
                   "search": summary(timings["grpc_search"])}
    return {
        "mcp": mcp,
        "grpc_direct": grpc_direct,
        "ratios": {
            "store_p50_mcp_over_grpc":
                round(mcp["store"]["p50_ms"] / grpc_direct["store"]["p50_ms"], 3),
            "search_p50_mcp_over_grpc":
                round(mcp["search"]["p50_ms"] / grpc_direct["search"]["p50_ms"], 3),
        },
        "warmup_calls_per_path": WARMUP,
        "store_findings": {k: dict(v) for k, v in findings.items()},
        "stored_without_vector": unembedded,
        "search_modes": {k: dict(v) for k, v in modes.items()},
    }


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="timed calls per tool and path")
    parser.add_argument("--port-offset", type=int, default=300,
                        help="added to every port of the stack (default 300)")
    parser.add_argument("--keep-data", action="store_true",
                        help="keep the temporary data dir (logs) after the run")
    args = parse_with_smoke(parser, {"n": 10})
    if args.n < 2:
        parser.error("--n must be at least 2")

    started_at = datetime.now(UTC)
    load_at_start = os.getloadavg()[0]
    data_dir = Path(tempfile.mkdtemp(prefix="engram-bench-"))
    out = sys.stdout
    out.write(f"data dir {data_dir}, port offset {args.port_offset}, n={args.n}\n")
    out.flush()
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        t0 = time.perf_counter()
        stack.start()
        cold_start_s = time.perf_counter() - t0
        out.write(f"stack ready in {cold_start_s:.1f}s at {stack.mcp_url}\n")
        out.flush()
        measured = asyncio.run(measure(stack, args.n))
    finally:
        stack.stop()
        if args.keep_data:
            out.write(f"kept {data_dir}\n")
        else:
            shutil.rmtree(data_dir, ignore_errors=True)

    result = {
        "timestamp": started_at.isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": platform.python_version(),
                    "loadavg_1m_at_start": round(load_at_start, 2),
                    "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
        "n": args.n,
        "cold_start_s": round(cold_start_s, 3),
        **measured,
        "command": command_line(),
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"mcp-latency-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    for tool in ("store", "search"):
        m, g = result["mcp"][tool], result["grpc_direct"][tool]
        out.write(f"{tool:6s} mcp p50 {m['p50_ms']:.2f} p95 {m['p95_ms']:.2f} "
                  f"mean {m['mean_ms']:.2f} ms | grpc p50 {g['p50_ms']:.2f} "
                  f"p95 {g['p95_ms']:.2f} mean {g['mean_ms']:.2f} ms | "
                  f"ratio {result['ratios'][f'{tool}_p50_mcp_over_grpc']:.2f}\n")
    out.write(f"cold start {result['cold_start_s']:.1f}s; wrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
