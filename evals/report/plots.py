"""The plots on docs/benchmarks.md, drawn with matplotlib from the same
artefacts evals/report/pages.py reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BASELINES = {"bm25": "BM25 (plain)", "bm25-stem": "BM25 (stemmed)", "dense": "dense MiniLM",
             "rrf": "RRF(BM25, dense)", "rrf-stem": "RRF(stemmed BM25, dense)"}
METADATA = {"Software": None}


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata=METADATA)
    plt.close(fig)


def recall_at_k(d: dict[str, Any], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 4))
    series = {"engram": d["engram"]} | {BASELINES.get(k, k): v for k, v in d["baselines"].items()}
    for name, block in series.items():
        ks = sorted(int(k.split("@")[1]) for k in block["turn"])
        ax.plot(ks, [block["turn"][f"r@{k}"] for k in ks], marker="o",
                linewidth=2.5 if name == "engram" else 1.2, label=name)
    ax.set_xscale("log")
    ax.set_xticks([1, 5, 10, 20, 50], labels=["1", "5", "10", "20", "50"])
    ax.set_xlabel("k")
    ax.set_ylabel("turn-level recall@k")
    ax.set_title("LoCoMo: evidence recall@k")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def latency(d: dict[str, Any], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    labels, p50, p95 = [], [], []
    for op in ("store", "search"):
        for key, via in (("mcp", "MCP"), ("grpc_direct", "gRPC")):
            labels.append(f"{op}\n{via}")
            p50.append(d[key][op]["p50_ms"])
            p95.append(d[key][op]["p95_ms"])
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], p50, width=0.4, label="p50")
    ax.bar([x + 0.2 for x in xs], p95, width=0.4, label="p95")
    ax.set_xticks(list(xs), labels=labels)
    ax.set_ylabel("ms")
    ax.set_title("memory_store / memory_search latency")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)


def scale(d: dict[str, Any], docs: dict[str, Any] | None, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 4))
    pts = d["points"]
    xs = [p["entries"] for p in pts]
    for key, label in (("store_p50_ms", "store p50"), ("store_p95_ms", "store p95"),
                       ("search_p50_ms", "search p50"), ("search_p95_ms", "search p95")):
        ax.plot(xs, [p[key] for p in pts], marker="o", label=label)
    if docs:
        dx = [p["chunks"] for p in docs["points"]]
        ax.plot(dx, [p["document_search_p95_ms"] for p in docs["points"]], marker="s",
                linestyle="--", label="document_search p95 (chunks)")
    ax.set_xscale("log")
    ax.set_xlabel("rows in one namespace")
    ax.set_ylabel("ms through MCP")
    ax.set_title("Latency against namespace size")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def embedder(d: dict[str, Any], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for key, label in (("service_batched", "service, batched"),
                       ("service_unbatched", "batching off, one thread"),
                       ("service_unbatched_two_lanes", "batching off, side lane")):
        pts = d[key]["short"]
        ax.plot([p["concurrency"] for p in pts], [p["sentences_per_s"] for p in pts],
                marker="o", label=label)
    ax.axhline(d["raw"]["short"]["best_sentences_per_s"], color="grey", linestyle=":",
               label="raw model, best batch")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("concurrent requests (one short text each)")
    ax.set_ylabel("texts per second")
    ax.set_title("Embedder throughput")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def draw_all(found: list[Any], latest: Callable[[list[Any], str], Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    loco, lat, sc = latest(found, "locomo"), latest(found, "mcp-latency"), latest(found, "scale")
    emb, docs = latest(found, "embedder"), latest(found, "documents")
    if loco:
        recall_at_k(loco.load(), out / "recall_at_k.png")
    if lat:
        latency(lat.load(), out / "latency.png")
    if sc:
        scale(sc.load(), docs.load() if docs else None, out / "scale.png")
    if emb:
        embedder(emb.load(), out / "embedder.png")
