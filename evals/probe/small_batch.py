"""A/B of the embedder's thread choices, in one run: embedder processes side
by side (by default ENGRAM_SMALL_BATCH_TEXTS 0 and 2; `--arm
name:setting=value,...` for others), lone Embed requests of LoCoMo turns
alternating between them (each text unique), then --concurrency one-text
requests against each, twice, alternating (the throughput must not drop).

Usage: .venv/bin/python -m evals.probe.small_batch [--n 120] [--concurrency 32]
       [--arm all_threads:small_batch_texts=0 --arm ...] [--data locomo10.json]
Writes evals/results/embedder-threads-<UTC timestamp>.json."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import sys
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from engram.v1 import embedder_pb2 as pb
from engram.v1 import embedder_pb2_grpc
from engram_kit.context import CallerContext
from evals.bench.embedder import embedder
from evals.bench.locomo import DEFAULT_DATA
from evals.harness.benchlib import command_line, results_dir, shown

DEFAULT_ARMS = ["all_threads:small_batch_texts=0", "small_one_thread:small_batch_texts=2"]
LOAD_S = 8.0


def turns(path: Path) -> list[str]:
    conv = json.loads(path.read_text())[1]["conversation"]
    return [f"{t['speaker']}: {t['text']}" for s in range(1, 6) for t in conv[f"session_{s}"]]


async def _embed(stub: Any, md: tuple, text: str) -> None:
    await stub.Embed(pb.EmbedRequest(texts=[text]), metadata=md, timeout=60)


def parse_arm(spec: str) -> tuple[str, dict[str, str]]:
    name, _, settings = spec.partition(":")
    return name, dict(kv.split("=", 1) for kv in settings.split(",") if kv)


async def _throughput(stub: Any, md: tuple, corpus: list[str], concurrency: int) -> float:
    done = 0
    until = time.monotonic() + LOAD_S

    async def worker(j: int) -> None:
        nonlocal done
        while time.monotonic() < until:
            await _embed(stub, md, f"{corpus[(j * 7 + done) % len(corpus)]} c{j}.{done}")
            done += 1

    started = time.monotonic()
    await asyncio.gather(*(worker(j) for j in range(concurrency)))
    return round(done / (time.monotonic() - started), 1)


async def measure(ports: dict[str, int], md: tuple, corpus: list[str], n: int,
                  concurrency: int) -> dict:
    chans = {arm: grpc.aio.insecure_channel(f"127.0.0.1:{p}") for arm, p in ports.items()}
    stubs = {arm: embedder_pb2_grpc.EmbedderServiceStub(c) for arm, c in chans.items()}
    arms = list(ports)
    out: dict[str, dict[str, Any]] = {arm: {} for arm in arms}
    try:
        for stub in stubs.values():
            for i in range(5):
                await _embed(stub, md, f"warm up {i}")
        lone: dict[str, list[float]] = {arm: [] for arm in arms}
        for i in range(n):
            for arm in arms if i % 2 == 0 else arms[::-1]:
                t0 = time.perf_counter()
                await _embed(stubs[arm], md, f"{corpus[i % len(corpus)]} (#{i})")
                lone[arm].append((time.perf_counter() - t0) * 1000)
        for arm, ms in lone.items():
            out[arm]["lone_p50_ms"] = round(statistics.median(ms), 2)
            out[arm]["lone_p95_ms"] = round(statistics.quantiles(ms, n=20)[18], 2)
        for rep in range(2):
            for arm in arms if rep == 0 else arms[::-1]:
                got = await _throughput(stubs[arm], md, corpus, concurrency)
                out[arm].setdefault(f"c{concurrency}_texts_per_s", []).append(got)
    finally:
        for chan in chans.values():
            await chan.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--n", type=int, default=120, help="lone requests per arm")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--arm", action="append", help="name:setting=value,... (repeatable)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    arms = dict(parse_arm(a) for a in args.arm or DEFAULT_ARMS)
    token = secrets.token_hex(16)
    md = CallerContext(principal="bench", namespace="bench").to_metadata(token)
    started, load0 = datetime.now(UTC), os.getloadavg()[0]
    with ExitStack() as es:
        ports = {name: es.enter_context(embedder(token, **env)) for name, env in arms.items()}
        got = asyncio.run(measure(ports, md, turns(args.data), args.n, args.concurrency))
    result = {"timestamp": started.isoformat(timespec="seconds"), "command": command_line(),
              "machine": {"cpu_count": os.cpu_count(), "loadavg_1m_at_start": round(load0, 2),
                          "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
              "n": args.n, "concurrency": args.concurrency, "arms": arms, **got}
    path = results_dir() / f"embedder-threads-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(json.dumps(got) + f"\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
