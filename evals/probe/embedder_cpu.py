"""Where the embedder's CPU goes at concurrency 32 (not a benchmark with
targets; the ratios come from bench/embedder.py).

CPU seconds, unlike texts per second, hardly move when other work shares the
cores, so this probe reads the served/raw budget on a busy machine:

1. raw: the model's CPU ms per text on one intra-op thread (the embedder's
   lanes run one each at concurrency 32), batches of 16;
2. floor: a bare grpc.aio Embed server answering a fixed vector, driven by
   the benchmark's own client: the server's and the client's CPU ms per
   request that any Python gRPC service pays;
3. service: the real embedder under the benchmark's load at concurrency 32:
   CPU ms per text of each of its threads (and model worker processes), the
   client's, and the share of the machine's cores the run kept busy.

`ceiling_ratio_vs_raw` = raw ms / (service + client ms per text): the
fraction of the raw model the service could reach if the cores were never
idle; `cores_busy_share` says how far from that a run was (meaningful only
on an otherwise idle machine). `lanes_encoding_share` is the share of the
run's wall time the model lanes spent inside an encode (the service's own
`engram_embedder_encode_seconds`, summed over lanes, over wall time x
lanes): the rest is a lane waiting for its next batch. Each round runs at
concurrency 32 and 128. Writes evals/results/embedder-cpu-<ts>.json.
Run: python -m evals.probe.embedder_cpu [--model-processes]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import secrets
import sys
import time
from datetime import UTC, datetime
from multiprocessing.queues import Queue
from pathlib import Path
from typing import Any

import grpc
import httpx
from prometheus_client.parser import text_string_to_metric_families

from engram.v1 import embedder_pb2 as pb
from engram.v1 import embedder_pb2_grpc
from engram_embedder.settings import EmbedderSettings
from engram_kit.context import CallerContext
from evals.bench import embedder as bench
from evals.harness.benchlib import command_line

CONCURRENCY = 32
# The service runs on its defaults: the first model thread and its side lanes.
LANES = 1 + EmbedderSettings.model_fields["side_lanes"].default
TICK = os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def tree_threads(pid: int) -> dict[str, float]:
    """CPU seconds of every thread of `pid` and of its child processes."""
    out: dict[str, float] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        task = Path(f"/proc/{pid}/task/{tid}")
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            children = (task / "children").read_text().split()
        except FileNotFoundError:
            continue
        out[f"{pid}/{tid}"] = (int(fields[11]) + int(fields[12])) / TICK
        for child in children:
            out.update(tree_threads(int(child)))
    return out


def raw_ms_per_text(n: int) -> float:
    from engram_embedder.backend import SentenceTransformerBackend

    backend = SentenceTransformerBackend("", "cpu")  # the runtime the service runs
    backend.intra_op_threads(1)
    corpus = bench.texts("short", n, seed=2)
    backend.encode(corpus[:16])
    started = time.thread_time()
    for i in range(0, n, 16):
        backend.encode(corpus[i:i + 16])
    return 1000 * (time.thread_time() - started) / n


class _Fixed(embedder_pb2_grpc.EmbedderServiceServicer):
    async def Embed(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC name)
        return pb.EmbedResponse(vectors_f32le=bytes(1536), count=1, model="m", dimension=384)


def _bare_server(ports: Queue) -> None:
    async def serve() -> None:
        server = grpc.aio.server()
        # Only Embed is probed; the base class answers the others UNIMPLEMENTED.
        embedder_pb2_grpc.add_EmbedderServiceServicer_to_server(
            _Fixed(), server)  # pyright: ignore[reportAbstractUsage]
        ports.put(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        await server.wait_for_termination()

    asyncio.run(serve())


def floor(n: int) -> dict:
    context = multiprocessing.get_context("spawn")
    ports: Queue = context.Queue()
    process = context.Process(target=_bare_server, args=(ports,), daemon=True)
    process.start()
    try:
        port = ports.get(timeout=60)
        assert process.pid is not None
        corpus = bench.texts("short", n, 1)
        asyncio.run(bench.load(port, (), corpus[:256], CONCURRENCY))
        server0, client0 = sum(tree_threads(process.pid).values()), own_cpu()
        asyncio.run(bench.load(port, (), corpus, CONCURRENCY))
        server1, client1 = sum(tree_threads(process.pid).values()), own_cpu()
    finally:
        process.kill()
    return {"server_ms_per_request": round(1000 * (server1 - server0) / n, 3),
            "client_ms_per_request": round(1000 * (client1 - client0) / n, 3)}


def encode_seconds(http_port: int) -> float:
    """The service's summed model time (engram_embedder_encode_seconds_sum)."""
    text = httpx.get(f"http://127.0.0.1:{http_port}/metrics", timeout=10).text
    return next(s.value for family in text_string_to_metric_families(text)
                for s in family.samples if s.name == "engram_embedder_encode_seconds_sum")


def service(n: int, settings: dict[str, str], concurrency: int = CONCURRENCY) -> dict:
    token = secrets.token_urlsafe(16)
    md = CallerContext(principal="probe", namespace="probe").to_metadata(token)
    with bench.embedder_process(token, **settings) as process:
        port = process.grpc_port
        asyncio.run(bench.load(port, md, bench.texts("short", 512, 1), concurrency))  # warm
        encode0 = encode_seconds(process.http_port)
        threads0, client0, wall0 = tree_threads(process.pid), own_cpu(), time.perf_counter()
        result = asyncio.run(bench.load(port, md, bench.texts("short", n, 1), concurrency))
        threads1, client1, wall = tree_threads(process.pid), own_cpu(), \
            time.perf_counter() - wall0
        encoding = encode_seconds(process.http_port) - encode0
    per_thread = sorted((1000 * (threads1[t] - threads0.get(t, 0.0)) / n for t in threads1),
                        reverse=True)
    server = sum(per_thread) / 1000 * n
    return {"concurrency": concurrency, "texts_per_s": round(result["sentences_per_s"], 1),
            "p50_ms": round(result["p50_ms"], 1),
            "thread_ms_per_text": [round(t, 3) for t in per_thread if t >= 0.005],
            "service_ms_per_text": round(sum(per_thread), 3),
            "client_ms_per_text": round(1000 * (client1 - client0) / n, 3),
            "cores_busy_share": round((server + client1 - client0) / (wall * (os.cpu_count() or 1)),
                                      3),
            "lanes_encoding_share": round(encoding / (wall * LANES), 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1024, help="requests per service run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--model-processes", action="store_true")
    args = parser.parse_args()
    settings = {"model_processes": "true" if args.model_processes else "false"}
    load_at_start = os.getloadavg()[0]
    raw = raw_ms_per_text(512)
    report: dict[str, Any] = {
        "timestamp": datetime.now(UTC).isoformat(), "cpus": os.cpu_count(),
        "command": command_line(),
        "loadavg_1m_at_start": round(load_at_start, 2),
        "raw_ms_per_text_one_thread": round(raw, 3), "grpc_floor": floor(4 * args.n),
        "service_rounds": [service(args.n, settings, c) for _ in range(args.rounds)
                           for c in (CONCURRENCY, 128)]}
    best = min(r["service_ms_per_text"] + r["client_ms_per_text"]
               for r in report["service_rounds"])
    report["ceiling_ratio_vs_raw"] = round(raw / best, 3)
    report["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    path = bench.RESULTS / f"embedder-cpu-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(report, indent=2))
    sys.stdout.write(json.dumps(report, indent=2) + f"\nwrote {path}\n")


if __name__ == "__main__":
    main()
