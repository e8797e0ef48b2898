"""What runs the model's forward pass on a CPU: PyTorch or ONNX Runtime.

In process, no service: the embedder's own backend (`SentenceTransformerBackend`)
built once per runtime. For each, a lone LoCoMo question encoded on one and
on every intra-op thread (the embedder encodes a lone query on one thread,
`small_batch_texts`), and the best throughput over batch sizes of LoCoMo
turns (bulk work). The vectors of both runtimes are compared on the same
texts: the largest absolute difference and the smallest cosine.

Usage: .venv/bin/python -m evals.probe.encode_runtime [--lone 200] [--bulk 512]
Writes evals/results/encode-runtime-<UTC timestamp>.json."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from engram_embedder.backend import ModelRuntime, SentenceTransformerBackend
from evals.bench.locomo import DEFAULT_DATA, load_conversations
from evals.harness.benchlib import command_line, parse_with_smoke, results_dir, shown

BATCHES = (8, 32, 64, 128)
RUNTIMES = (ModelRuntime.TORCH, ModelRuntime.ONNX)


def lone_ms(backend: SentenceTransformerBackend, queries: list[str], threads: int) -> dict:
    backend.intra_op_threads(threads)
    for q in queries[:10]:
        backend.encode([q])
    took = []
    for q in queries:
        started = time.perf_counter()
        backend.encode([q])
        took.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(statistics.median(took), 3),
            "p90_ms": round(float(np.percentile(took, 90)), 3)}


def bulk_per_s(backend: SentenceTransformerBackend, texts: list[str]) -> dict:
    backend.intra_op_threads(0)
    by_batch = {}
    for size in BATCHES:
        backend.encode(texts[:size])
        started = time.perf_counter()
        for i in range(0, len(texts), size):
            backend.encode(texts[i:i + size])
        by_batch[str(size)] = round(len(texts) / (time.perf_counter() - started), 1)
    return {"texts_per_s_by_batch": by_batch, "best_texts_per_s": max(by_batch.values())}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--lone", type=int, default=200, help="lone questions encoded")
    parser.add_argument("--bulk", type=int, default=512, help="turns encoded in batches")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parse_with_smoke(parser, {"lone": 12, "bulk": 32})
    convs = load_conversations(args.data, None, 2)
    queries = [q.question for c in convs for q in c.questions][:args.lone]
    texts = [t.text for c in convs for t in c.turns][:args.bulk]
    started, load0 = datetime.now(UTC), os.getloadavg()[0]
    runs: dict[str, Any] = {}
    vectors: dict[str, np.ndarray] = {}
    for runtime in RUNTIMES:
        t0 = time.perf_counter()
        backend = SentenceTransformerBackend("", "cpu", runtime=runtime)
        load_s = time.perf_counter() - t0
        threads = backend.default_threads()
        runs[runtime.value] = {"load_s": round(load_s, 2),
                               "lone_1_thread": lone_ms(backend, queries, 1),
                               f"lone_{threads}_threads": lone_ms(backend, queries, 0),
                               "bulk": bulk_per_s(backend, texts)}
        vectors[runtime.value] = backend.encode(queries[:50] + texts[:50]).vectors
        sys.stderr.write(f"{runtime.value}: {runs[runtime.value]}\n")
    torch_v, onnx_v = vectors["torch"], vectors["onnx"]
    lone_key = "lone_1_thread"
    result = {
        "timestamp": started.isoformat(timespec="seconds"), "command": command_line(),
        "machine": {"cpu_count": os.cpu_count(), "loadavg_1m_at_start": round(load0, 2),
                    "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
        "runs": runs,
        "agreement": {"max_abs_diff": float(np.abs(torch_v - onnx_v).max()),
                      "min_cosine": float((torch_v * onnx_v).sum(axis=1).min())},
        "ratios_onnx_over_torch": {
            "lone_1_thread_p50": round(runs["onnx"][lone_key]["p50_ms"]
                                       / runs["torch"][lone_key]["p50_ms"], 3),
            "bulk_best": round(runs["onnx"]["bulk"]["best_texts_per_s"]
                               / runs["torch"]["bulk"]["best_texts_per_s"], 3)},
    }
    out = results_dir() / f"encode-runtime-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(f"{json.dumps(result['ratios_onnx_over_torch'])} {shown(out)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
