"""The latency half of bench_peers: one MCP session per client, sequential
calls interleaved between engram and the peer, closed-loop load at a fixed
concurrency, and where a lone engram call's milliseconds go (read from the
services' own Prometheus histograms, before and after)."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families

CALL_TIMEOUT_S = 60.0


@asynccontextmanager
async def session(url: str, token: str) -> AsyncIterator[Client]:
    """One MCP session over streamable HTTP, as an agent holds it."""
    async with AsyncExitStack() as es:
        http = await es.enter_async_context(httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=CALL_TIMEOUT_S))
        yield await es.enter_async_context(
            Client(streamable_http_client(url, http_client=http)))


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        raise RuntimeError(f"{tool} failed: {text[:300]}")
    if isinstance(result.structured_content, dict):
        return result.structured_content
    return json.loads(getattr(result.content[0], "text", "{}"))


def quantiles_ms(samples_s: list[float]) -> dict[str, float]:
    if not samples_s:
        return {"n": 0}
    ms = sorted(s * 1000 for s in samples_s)
    cuts = statistics.quantiles(ms, n=100, method="inclusive") if len(ms) > 1 else [ms[0]] * 99
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 2),
            "p95_ms": round(cuts[94], 2), "p99_ms": round(cuts[98], 2),
            "mean_ms": round(statistics.fmean(ms), 2)}


def unique(text: str, n: int | str) -> str:
    """Each call's text is its own (a numbered suffix): both systems keep
    recent vectors (the peer an LRU by text, engram's embedder a short query
    cache), and a repeated text would time a cache, not an encode."""
    return f"{text} (#{n})"


@dataclass
class Target:
    """What one system is called with: its MCP URL, token and tool arguments."""
    name: str
    url: str
    token: str
    store_args: Callable[[str, str], dict[str, Any]]  # (text, scope) -> args
    search_args: Callable[[str, str], dict[str, Any]]  # (query, scope) -> args
    # Waits, untimed, until the work a system does after its reply is done,
    # so that the next timed call (the other system's, or its own) does not
    # pay for it; that work's CPU still counts in the concurrent phase.
    settle: Callable[[], Awaitable[None]] | None = None


# --------------------------------------------------------------------- sequential


async def sequential(targets: list[Target], texts: list[str], queries: list[str],
                     scope: str, warmup: int,
                     between: Callable[[str], Awaitable[None]] | None = None
                     ) -> dict[str, dict[str, Any]]:
    """Lone calls, one system after the other call by call (both see the
    same moment's machine load); `between(phase)` runs before each timed phase."""
    timings: dict[str, dict[str, list[float]]] = {t.name: {"store": [], "search": []}
                                                  for t in targets}
    async with AsyncExitStack() as es:
        clients = [await es.enter_async_context(session(t.url, t.token)) for t in targets]
        for phase, items, make in (("store", texts, "store_args"),
                                   ("search", queries, "search_args")):
            for i in range(warmup):
                for t, c in zip(targets, clients, strict=True):
                    await call(c, f"memory_{phase}", getattr(t, make)(
                        f"warm-up {phase} {i}", scope + "-warmup"))
            if between is not None:
                await between(phase)
            for i, item in enumerate(items):
                order = list(zip(targets, clients, strict=True))
                for t, c in order if i % 2 == 0 else order[::-1]:
                    args = getattr(t, make)(unique(item, i), scope)
                    t0 = time.perf_counter()
                    await call(c, f"memory_{phase}", args)
                    timings[t.name][phase].append(time.perf_counter() - t0)
                    if t.settle is not None:
                        await t.settle()
        if between is not None:
            await between("end")
    return {name: {p: quantiles_ms(s) for p, s in d.items()} for name, d in timings.items()}


# --------------------------------------------------------------------- concurrency


@dataclass
class LoadLedger:
    samples: dict[str, list[float]] = field(default_factory=lambda: {"store": [], "search": []})
    errors: Counter = field(default_factory=Counter)
    error_examples: dict[str, str] = field(default_factory=dict)


async def _client_loop(target: Target, client: Client, ledger: LoadLedger, rng: random.Random,
                       texts: list[str], queries: list[str], scope: str, until: float) -> None:
    n = 0
    while time.monotonic() < until:
        op = "store" if rng.random() < 0.5 else "search"
        item = unique(rng.choice(texts if op == "store" else queries), f"{scope}.{n}")
        n += 1
        args = (target.store_args if op == "store" else target.search_args)(item, scope)
        t0 = time.perf_counter()
        try:
            await call(client, f"memory_{op}", args)
        except Exception as exc:  # noqa: BLE001 (counted: the load goes on)
            ledger.errors[op] += 1
            ledger.error_examples.setdefault(op, repr(exc)[:300])
            continue
        if time.monotonic() <= until:
            ledger.samples[op].append(time.perf_counter() - t0)


async def concurrent(target: Target, clients: int, seconds: float, texts: list[str],
                     queries: list[str], scope: str, seed: int) -> dict[str, Any]:
    """`clients` MCP sessions, each calling back to back (store or search,
    half each) for `seconds`; sessions are opened before the clock starts."""
    ledger = LoadLedger()
    async with AsyncExitStack() as es:
        sessions = [await es.enter_async_context(session(target.url, target.token))
                    for _ in range(clients)]
        started = time.monotonic()
        until = started + seconds
        await asyncio.gather(*(
            _client_loop(target, c, ledger, random.Random(seed + i), texts, queries,
                         f"{scope}-c{i}", until) for i, c in enumerate(sessions)))
        elapsed = time.monotonic() - started
    every = ledger.samples["store"] + ledger.samples["search"]
    return {"clients": clients, "seconds": round(elapsed, 1),
            "ops": len(every), "ops_per_s": round(len(every) / seconds, 1),
            "all": quantiles_ms(every),
            **{op: quantiles_ms(s) for op, s in ledger.samples.items()},
            "errors": dict(ledger.errors), "error_examples": ledger.error_examples}


def merge_rounds(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Rounds of one system, summarised: their median ops/s and p99 (each
    round's own), so one noisy round does not decide."""
    return {"rounds": rounds,
            "ops_per_s": round(statistics.median(r["ops_per_s"] for r in rounds), 1),
            "p99_ms": round(statistics.median(r["all"].get("p99_ms", 0) for r in rounds), 1),
            "p50_ms": round(statistics.median(r["all"].get("p50_ms", 0) for r in rounds), 1),
            "errors": sum(sum(r["errors"].values()) for r in rounds)}


# --------------------------------------------------------------------- breakdown

# (label in the artefact, metric family, label filter); the stage histograms
# are the services' own (engram_kit.metrics.stage).
SPANS = {
    "store": [
        ("gateway_tool", "engram_gateway_tool_latency_seconds", {"tool": "memory_store"}),
        ("memory_handler", "engram_rpc_latency_seconds", {"service": "memory",
                                                          "method": "Store"}),
        ("memory_embed_call", "engram_rpc_stage_seconds", {"service": "memory",
                                                           "method": "Store", "stage": "embed"}),
        ("memory_transaction", "engram_rpc_stage_seconds",
         {"service": "memory", "method": "Store", "stage": "transaction"}),
    ],
    "search": [
        ("gateway_tool", "engram_gateway_tool_latency_seconds", {"tool": "memory_search"}),
        ("gateway_embed_call", "engram_rpc_stage_seconds",
         {"service": "gateway", "method": "memory_search", "stage": "embed"}),
        ("memory_handler", "engram_rpc_latency_seconds", {"service": "memory",
                                                          "method": "Search"}),
        ("memory_embed_call", "engram_rpc_stage_seconds",
         {"service": "memory", "method": "Search", "stage": "embed"}),
        ("memory_transaction", "engram_rpc_stage_seconds",
         {"service": "memory", "method": "Search", "stage": "transaction"}),
        ("cortex_handler", "engram_rpc_latency_seconds", {"service": "cortex"}),
    ],
}
EMBEDDER = [
    ("embedder_handler", "engram_rpc_latency_seconds", {"service": "embedder",
                                                        "method": "Embed"}),
    ("embedder_queue_wait", "engram_embedder_queue_wait_seconds", {"priority": "interactive"}),
    ("embedder_encode", "engram_embedder_encode_seconds", {}),
]


def scrape(urls: list[str]) -> dict[tuple[str, frozenset], float]:
    """Every histogram's _sum and _count, from each service's /metrics."""
    out: dict[tuple[str, frozenset], float] = {}
    for url in urls:
        text = httpx2.get(url, timeout=10).text
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.name.endswith(("_sum", "_count")):
                    key = (s.name, frozenset(s.labels.items()))
                    out[key] = out.get(key, 0.0) + s.value
    return out


def _delta(before: dict, after: dict, family: str, want: dict[str, str]) -> tuple[float, float]:
    def total(snap: dict, suffix: str) -> float:
        return sum(v for (name, labels), v in snap.items() if name == family + suffix
                   and all((k, val) in labels for k, val in want.items()))
    return (total(after, "_sum") - total(before, "_sum"),
            total(after, "_count") - total(before, "_count"))


def breakdown(op: str, before: dict, after: dict, n_ops: int,
              client_mean_ms: float) -> dict[str, Any]:
    """Per lone call: each span's milliseconds (its total over the run / the
    calls), how many times it ran per call, and the differences between
    nested spans (the hops and layers nothing else times)."""
    spans: dict[str, dict[str, float]] = {"client_e2e": {"ms_per_call": client_mean_ms,
                                                         "runs_per_call": 1.0}}
    for name, family, want in SPANS[op] + EMBEDDER:
        total_s, count = _delta(before, after, family, want)
        spans[name] = {"ms_per_call": round(1000 * total_s / n_ops, 2),
                       "runs_per_call": round(count / n_ops, 2)}

    def ms(name: str) -> float:
        return spans[name]["ms_per_call"]

    derived: dict[str, float | None] = {
        "mcp_http_layer": ms("client_e2e") - ms("gateway_tool"),
        "gateway_to_memory_hop_and_gateway_work": ms("gateway_tool") - ms("memory_handler"),
        "memory_own_work": ms("memory_handler") - ms("memory_embed_call")
        - ms("memory_transaction"),
        "memory_to_embedder_hops": ms("memory_embed_call") - ms("embedder_handler"),
        "embedder_own_work": ms("embedder_handler") - ms("embedder_queue_wait")
        - ms("embedder_encode"),
    }
    if op == "search":
        # The gateway encodes the query before it calls memory and the cortex.
        derived["gateway_to_memory_hop_and_gateway_work"] = (
            ms("gateway_tool") - ms("gateway_embed_call") - ms("memory_handler"))
        derived["memory_to_embedder_hops"] = None  # the embedder serves several callers
        derived["embedder_own_work"] = None
    return {"spans": spans, "derived_ms": {k: None if v is None else round(v, 2)
                                           for k, v in derived.items()}}
