"""Embedder probes behind docs/decisions/0004-embedder-lanes-and-tokenizer-lock.md
(not a benchmark with targets; the ratios come from bench/embedder.py).

1. tokenizer race: two threads encoding with sentence-transformers' own
   `encode` while a third tokenizes without padding (what the embedder's
   token count once did beside each batch), against three threads on the
   embedder's backend. Counts failed encodes in each.
2. lanes at concurrency 32: for each batcher setting, the service's
   throughput, CPU per thread of the embedder process (from /proc), the
   load generator's CPU, and how busy the lanes were (encode seconds from
   the embedder's metrics over wall time).

Writes evals/results/embedder-probe-<timestamp>.json. Run:
    .venv/bin/python -m evals.probe.embedder
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import secrets
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import httpx

from engram_embedder.backend import SentenceTransformerBackend
from engram_kit.context import CallerContext
from evals.bench import embedder as bench
from evals.harness.benchlib import command_line

SETTINGS = [  # (label, embedder settings); the defaults first
    ("defaults (side_lanes=1, side_batch_min=16)", {}),
    ("side_batch_min=14", {"side_batch_min": "14"}),
    ("side_batch_min=12", {"side_batch_min": "12"}),
    ("side_lanes=2, side_batch_min=10", {"side_lanes": "2", "side_batch_min": "10"}),
]


def tokenizer_race(seconds: float) -> dict:
    backend = SentenceTransformerBackend("", "cpu")
    st = backend._st
    texts = bench.texts("short", 4096, 2)

    def hammer(call, failures: Counter, calls: Counter, stop: float, key: str) -> None:
        i = 0
        while time.monotonic() < stop:
            try:
                call(texts[i % 4000: i % 4000 + 4])
                calls[key] += 1
            except Exception as exc:  # the point: count what fails and why
                failures[f"{key}: {type(exc).__name__}: {str(exc)[:80]}"] += 1
            i += 4

    def run(encoders: list, counter_call=None) -> dict:
        failures, calls = Counter(), Counter()
        stop = time.monotonic() + seconds
        threads = [threading.Thread(target=hammer, args=(enc, failures, calls, stop, "encode"))
                   for enc in encoders]
        if counter_call:
            threads.append(threading.Thread(target=hammer, args=(
                counter_call, failures, calls, stop, "count")))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return {"calls": dict(calls), "failures": dict(failures)}

    def st_encode(batch: list[str]) -> object:
        return st.encode(batch, batch_size=len(batch), normalize_embeddings=True)

    def count_unpadded(batch: list[str]) -> object:
        return st.tokenizer(batch, truncation=True, max_length=st.max_seq_length)

    return {"seconds_each": seconds,
            "st_encode_x2_plus_unpadded_count": run([st_encode, st_encode], count_unpadded),
            "backend_encode_x3": run([backend.encode] * 3)}


def _thread_cpu(pid: int) -> dict[str, float]:
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except FileNotFoundError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[tid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _encode_seconds(http_port: int) -> float:
    text = httpx.get(f"http://127.0.0.1:{http_port}/metrics").text
    found = re.search(r"^engram_embedder_encode_seconds_sum (\S+)", text, re.M)
    if found is None:
        raise RuntimeError("the embedder's /metrics has no engram_embedder_encode_seconds_sum")
    return float(found.group(1))


def lanes(settings: dict[str, str], n: int) -> dict:
    token = secrets.token_urlsafe(16)
    md = CallerContext(principal="probe", namespace="probe").to_metadata(token)
    with bench.embedder_process(token, **settings) as process:
        port = process.grpc_port
        asyncio.run(bench.load(port, md, bench.texts("short", 512, 1), 32))  # warm
        cpu0, enc0, own0 = _thread_cpu(process.pid), _encode_seconds(process.http_port), \
            resource.getrusage(resource.RUSAGE_SELF)
        result = asyncio.run(bench.load(port, md, bench.texts("short", n, 1), 32))
        cpu1, enc1, own1 = _thread_cpu(process.pid), _encode_seconds(process.http_port), \
            resource.getrusage(resource.RUSAGE_SELF)
    wall = n / result["sentences_per_s"]
    threads = sorted((cpu1[t] - cpu0.get(t, 0.0)) / wall for t in cpu1)[::-1]
    lane_count = 1 + int(settings.get("side_lanes", "1"))
    own = (own1.ru_utime - own0.ru_utime + own1.ru_stime - own0.ru_stime) / wall
    return {"settings": settings, "sentences_per_s": result["sentences_per_s"],
            "p50_ms": result["p50_ms"], "p95_ms": result["p95_ms"],
            "embedder_threads_core_share": [round(t, 3) for t in threads if t >= 0.005],
            "load_generator_core_share": round(own, 3),
            "lanes_busy_share": round((enc1 - enc0) / (wall * lane_count), 3)}


def main() -> None:
    n = 2048
    report = {"timestamp": datetime.now(UTC).isoformat(), "cpus": os.cpu_count(),
              "command": command_line(), "tokenizer_race": tokenizer_race(20.0),
              "lanes_at_concurrency_32": {"requests": n, "rounds": []}}
    for _ in range(2):  # alternating rounds: single runs vary by about +-10%
        report["lanes_at_concurrency_32"]["rounds"].append(
            {label: lanes(settings, n) for label, settings in SETTINGS})
    path = bench.RESULTS / f"embedder-probe-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(report, indent=2))
    sys.stdout.write(json.dumps(report, indent=2) + f"\nwrote {path}\n")


if __name__ == "__main__":
    main()
