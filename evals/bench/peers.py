"""engram beside its peer, Pseudolife-MCP (lite tier), on LoCoMo: recall and latency.

Both systems run on this machine at once and are driven by the official MCP
SDK client, one after the other, so both meet the same moment's load:
1. recall: LoCoMo's protocol of bench_locomo (each dialog turn stored through
   memory_store, each category 1-4 question asked through memory_search,
   top_k 50, evidence recall@k at turn and session level, per category), per
   conversation engram then the peer (alternating which goes first);
2. sequential latency: lone memory_store of LoCoMo turns, then lone
   memory_search of its questions, engram and the peer call by call;
   around engram's calls, its services' histograms say where each
   millisecond went (the breakdown). engram encodes a store's context
   vector after its reply: after each engram call the harness waits,
   untimed, until memory's vector queues are empty, so the next timed call
   (the peer's or engram's) does not pay for it; the embedder spans of the
   store breakdown include those deferred encodes;
3. concurrency: N clients (8) calling back to back, half stores and half
   searches, for S seconds, in rounds alternating engram and the peer
   (after each engram round its queues drain before the next round); the
   deferred encodes' CPU counts here.
4. back to back (run first, on empty stores): phases 2 and 3 again with
   nothing waited for, untimed, between calls or rounds: an agent storing
   several memories in a row meets engram's deferred encodes on its next
   calls, and a small bank is where most agents start. Reported as its own
   regime (`back_to_back`) beside the settled one.

The peer is installed into a venv of its own under .cache/ (CPU torch first;
reliability_peer_daemon says how and why it embeds with MiniLM). It keeps
conversations apart by `source` (it has no namespaces), engram by namespace.

Usage: .venv/bin/python -m evals.bench.peers [--smoke] [--data locomo10.json]
Writes evals/results/peers-<UTC timestamp>.json. Full run: about 20 minutes
on 2 idle cores (most of it the two LoCoMo ingests; each conversation's
wait for engram's vectors is bounded at 600 s), plus the peer's install the
first time (about 2 minutes); --smoke about 3. Under heavy load from other
work, every phase stretches with it.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from engram_embedder.backend import SentenceTransformerBackend
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.bench.locomo import (
    DEFAULT_AUDIT,
    DEFAULT_DATA,
    MEMORY_SCHEMA,
    TOP_K,
    Conversation,
    git_state,
    idle_encode_p50_ms,
    load_conversations,
    score,
    unembedded,
)
from evals.harness.benchlib import (
    command_line,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
)
from evals.harness.peer_daemon import PACKAGE, PeerDaemon, ensure_installed
from evals.harness.peers_load import (
    Target,
    breakdown,
    call,
    concurrent,
    merge_rounds,
    quantiles_ms,
    scrape,
    sequential,
    session,
)

WARMUP = 5
B2B_SCOPE = "peers-b2b"
# The targets of issue 25 (engram / peer).
SEQ_P50_RATIO_MAX, SEQ_P95_RATIO_MAX = 1.5, 1.5


class DeferredWork:
    """engram's work after a store's reply: the context vector it queued
    (and any vector the embedder could not give at once). `wait` returns
    when memory's vector queues are empty, in every namespace."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn: asyncpg.Connection | None = None

    async def queued(self) -> int:
        conn = self.conn or await asyncpg.connect(
            self.dsn, server_settings={"search_path": f'"{MEMORY_SCHEMA}"'})
        self.conn = conn
        async with conn.transaction():
            # The sweep's duty setting: its policy shows every namespace's queue rows.
            await conn.execute("SELECT set_config('engram.embedding_sweep', 'on', true)")
            left = await conn.fetchval(
                "SELECT (SELECT count(*) FROM context_vector_queue)"
                " + (SELECT count(*) FROM embedding_queue)")
            return int(left or 0)

    async def wait(self, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while await self.queued() > 0:
            if time.monotonic() > deadline:
                raise RuntimeError(f"engram's vector queues not empty after {timeout_s:.0f} s")
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()
            self.conn = None


def engram_target(stack: Stack, token: str) -> Target:
    return Target("engram", stack.mcp_url, token,
                  lambda text, ns: {"text": text, "namespace": ns, "source": "bench"},
                  lambda q, ns: {"query": q, "namespace": ns, "top_k": 10})


def peer_target(peer: PeerDaemon) -> Target:
    return Target("peer", peer.url + "/mcp", peer.tokens[0],
                  lambda text, src: {"text": text, "source": src},
                  lambda q, src: {"query": q, "sources": [src], "top_k": 10})


# --------------------------------------------------------------------- recall


async def recall_engram(t: Target, c: Conversation, dsn: str) -> dict[str, Any]:
    """bench_locomo's protocol: one episode per LoCoMo session, the turn's id as
    its tag, its session's date as valid_from; searched once all are embedded."""
    store_s, search_s, rankings = [], [], {}
    by_id: dict[str, list[str]] = {}
    async with session(t.url, t.token) as client:
        current = None
        for turn in c.turns:
            if turn.session != current:
                if current is not None:
                    await call(client, "episode_end", {"namespace": c.namespace})
                await call(client, "episode_start", {"title": f"{c.sample_id} session "
                                                     f"{turn.session}", "namespace": c.namespace})
                current = turn.session
            t0 = time.perf_counter()
            reply = await call(client, "memory_store", {
                "text": turn.text, "tags": [turn.dia_id.lower()], "source": c.sample_id,
                "valid_from": turn.valid_from, "namespace": c.namespace})
            store_s.append(time.perf_counter() - t0)
            by_id.setdefault(reply["id"], []).append(turn.dia_id)
        await call(client, "episode_end", {"namespace": c.namespace})
        waited = time.perf_counter()
        while await unembedded(dsn, c.namespace) > 0:
            if time.perf_counter() - waited > 600:
                raise RuntimeError(f"{c.namespace}: entries still unembedded after 600 s")
            await asyncio.sleep(1.0)
        for q in c.questions:
            t0 = time.perf_counter()
            reply = await call(client, "memory_search", {"query": q.question, "top_k": TOP_K,
                                                         "namespace": c.namespace})
            search_s.append(time.perf_counter() - t0)
            rankings[q.qid] = [by_id.get(e["id"]) or [x.upper() for x in e["tags"]]
                               for e in reply["entries"]]
    return {"store_s": store_s, "search_s": search_s, "rankings": rankings}


async def recall_peer(t: Target, c: Conversation) -> dict[str, Any]:
    """The same turns, tags and questions; `source` is the conversation. The
    peer's relevance floor is lifted (min_score 0) so that both systems rank
    to the same depth; a turn it dropped as a near-duplicate is found through
    the entry whose text it repeats."""
    store_s, search_s, rankings = [], [], {}
    by_text: dict[str, list[str]] = {}
    dropped = Counter()
    async with session(t.url, t.token) as client:
        for turn in c.turns:
            t0 = time.perf_counter()
            reply = await call(client, "memory_store", {
                "text": turn.text, "tags": [turn.dia_id.lower()], "source": c.sample_id})
            store_s.append(time.perf_counter() - t0)
            by_text.setdefault(turn.text, []).append(turn.dia_id)
            if not reply.get("stored", True):
                dropped[str(reply.get("reason"))] += 1
        for q in c.questions:
            t0 = time.perf_counter()
            reply = await call(client, "memory_search", {
                "query": q.question, "top_k": TOP_K, "sources": [c.sample_id],
                "min_score": 0.0})
            search_s.append(time.perf_counter() - t0)
            rankings[q.qid] = [sorted({*(x.upper() for x in e.get("tags", [])),
                                       *by_text.get(e.get("text", ""), [])})
                               for e in reply["entries"]]
    return {"store_s": store_s, "search_s": search_s, "rankings": rankings,
            "not_stored": dict(dropped)}


async def recall(eng: Target, peer: Target, convs: list[Conversation], dsn: str,
                 out: Any) -> dict[str, dict[str, Any]]:
    runs: dict[str, dict[str, Any]] = {"engram": {"store_s": [], "search_s": [],
                                                  "rankings": {}},
                                       "peer": {"store_s": [], "search_s": [], "rankings": {},
                                                "not_stored": Counter()}}

    async def one(name: str, c: Conversation) -> None:
        t0 = time.perf_counter()
        got = await (recall_engram(eng, c, dsn) if name == "engram" else recall_peer(peer, c))
        run = runs[name]
        run["store_s"] += got["store_s"]
        run["search_s"] += got["search_s"]
        run["rankings"].update(got["rankings"])
        if "not_stored" in got:
            run["not_stored"].update(got["not_stored"])
        out.write(f"{name}: {c.sample_id} {len(c.turns)} stores, {len(c.questions)} searches "
                  f"in {time.perf_counter() - t0:.0f}s\n")
        out.flush()

    for i, c in enumerate(convs):
        for name in ("engram", "peer") if i % 2 == 0 else ("peer", "engram"):
            await one(name, c)
    questions = [q for c in convs for q in c.questions]
    return {name: {"recall": {k: v for k, v in score(r["rankings"], questions).items()},
                   "store": quantiles_ms(r["store_s"]), "search": quantiles_ms(r["search_s"]),
                   **({"not_stored": dict(r["not_stored"])} if "not_stored" in r else {})}
            for name, r in runs.items()}


# --------------------------------------------------------------------- latency


def workload(convs: list[Conversation], lone_n: int) -> tuple[list[str], list[str],
                                                              list[str], list[str]]:
    """All turns and questions, and the `lone_n` of each the sequential phase calls."""
    texts = [t.text for c in convs for t in c.turns]
    queries = [q.question for c in convs for q in c.questions]
    step = max(1, len(texts) // lone_n)
    return texts, queries, texts[::step][:lone_n], (queries * 2)[:lone_n]


async def back_to_back(eng: Target, peer: Target, convs: list[Conversation],
                       sizes: argparse.Namespace, dsn: str, out: Any) -> dict[str, Any]:
    """Both stores empty, every call straight after the one before: no
    settle, no drain between rounds (engram's deferred encodes compete with
    the timed calls, as they do for an agent storing several in a row)."""
    texts, queries, lone_texts, lone_queries = workload(convs, sizes.lone_n)
    seq = await sequential([eng, peer], lone_texts, lone_queries, B2B_SCOPE, WARMUP)
    out.write(f"back to back, sequential: {seq}\n")
    rounds: dict[str, list[dict[str, Any]]] = {"engram": [], "peer": []}
    for r in range(sizes.rounds):
        for t in (eng, peer) if r % 2 == 0 else (peer, eng):
            rounds[t.name].append(await concurrent(t, sizes.clients, sizes.concurrent_s, texts,
                                                   queries, f"{B2B_SCOPE}-load-r{r}",
                                                   seed=100 * r + 7))
    conc = {name: merge_rounds(rs) for name, rs in rounds.items()}
    deferred = DeferredWork(dsn)
    try:
        await deferred.wait(600.0)  # untimed: the next phases start settled
    finally:
        await deferred.close()
    return {"sequential": seq, "concurrent": conc,
            "ratios_engram_over_peer": latency_ratios(seq, conc)}


def b2b_namespaces(sizes: argparse.Namespace) -> list[str]:
    return [B2B_SCOPE, f"{B2B_SCOPE}-warmup",
            *(f"{B2B_SCOPE}-load-r{r}-c{i}" for r in range(sizes.rounds)
              for i in range(sizes.clients))]


async def latency(stack: Stack, eng: Target, peer: Target, convs: list[Conversation],
                  sizes: argparse.Namespace, out: Any) -> dict[str, Any]:
    texts, queries, lone_texts, lone_queries = workload(convs, sizes.lone_n)
    ports = {n: stack.topology.services[n].ports for n in ("memory", "embedder", "cortex")}
    urls = [stack.mcp_url.rsplit("/mcp", 1)[0] + "/metrics",
            *(f"http://127.0.0.1:{ports[n][p]}/metrics"
              for n, p in (("memory", 8761), ("embedder", 8763), ("cortex", 8762)))]
    deferred = DeferredWork(stack.service_dsn("memory"))
    try:
        return await _latency(eng, peer, texts, queries, lone_texts, lone_queries, urls,
                              deferred, sizes, out)
    finally:
        await deferred.close()


async def _latency(eng: Target, peer: Target, texts: list[str], queries: list[str],
                   lone_texts: list[str], lone_queries: list[str], urls: list[str],
                   deferred: DeferredWork, sizes: argparse.Namespace,
                   out: Any) -> dict[str, Any]:
    snaps: dict[str, Any] = {}

    async def between(phase: str) -> None:
        await deferred.wait()
        snaps[phase] = await asyncio.to_thread(scrape, urls)

    eng = dataclasses.replace(eng, settle=deferred.wait)
    seq = await sequential([eng, peer], lone_texts, lone_queries, "peers-lone", WARMUP,
                           between)
    parts = {op: breakdown(op, snaps[op], snaps["search" if op == "store" else "end"],
                           seq["engram"][op]["n"], seq["engram"][op]["mean_ms"])
             for op in ("store", "search")}
    out.write(f"sequential: {seq}\n")
    out.flush()
    rounds: dict[str, list[dict[str, Any]]] = {"engram": [], "peer": []}
    for r in range(sizes.rounds):
        for t in (eng, peer) if r % 2 == 0 else (peer, eng):
            got = await concurrent(t, sizes.clients, sizes.concurrent_s, texts, queries,
                                   f"peers-load-r{r}", seed=100 * r)
            rounds[t.name].append(got)
            await deferred.wait()  # engram's queued vectors, before the next round
            out.write(f"{t.name} round {r}: {got['ops_per_s']} ops/s, "
                      f"p99 {got['all'].get('p99_ms')} ms, errors {got['errors']}\n")
            out.flush()
    return {"sequential": seq, "breakdown": parts,
            "concurrent": {name: merge_rounds(rs) for name, rs in rounds.items()}}


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def latency_ratios(seq: dict[str, Any], conc: dict[str, Any]) -> dict[str, float | None]:
    ratios = {f"sequential_{op}_{q}": ratio(seq["engram"][op].get(q), seq["peer"][op].get(q))
              for op in ("store", "search") for q in ("p50_ms", "p95_ms")}
    ratios["concurrent_ops_per_s"] = ratio(conc["engram"]["ops_per_s"], conc["peer"]["ops_per_s"])
    ratios["concurrent_p99_ms"] = ratio(conc["engram"]["p99_ms"], conc["peer"]["p99_ms"])
    return ratios


def verdicts(rec: dict[str, Any], lat: dict[str, Any]) -> dict[str, Any]:
    """engram / peer for each number, and the issue's targets as met or not."""
    seq, conc = lat["sequential"], lat["concurrent"]
    ratios = latency_ratios(seq, conc)
    ratios.update({f"recall_phase_{op}_{q}": ratio(rec["engram"][op].get(q),
                                                  rec["peer"][op].get(q))
                   for op in ("store", "search") for q in ("p50_ms", "p95_ms")})
    ratios["recall_turn_r10"] = ratio(rec["engram"]["recall"]["turn"]["r@10"],
                                      rec["peer"]["recall"]["turn"]["r@10"])
    cats = {c: (v["turn"]["r@10"], rec["peer"]["recall"]["per_category"][c]["turn"]["r@10"])
            for c, v in rec["engram"]["recall"]["per_category"].items()}
    ratios.update({f"recall_turn_r10_category_{c}": ratio(e, p) for c, (e, p) in cats.items()})

    def within(key: str, limit: float) -> bool:
        value = ratios[key]
        return value is not None and value <= limit

    targets = {
        "sequential_store_p50_le_1.5x_peer": within("sequential_store_p50_ms", SEQ_P50_RATIO_MAX),
        "sequential_store_p95_le_1.5x_peer": within("sequential_store_p95_ms", SEQ_P95_RATIO_MAX),
        "sequential_search_p50_le_1.5x_peer": within("sequential_search_p50_ms",
                                                     SEQ_P50_RATIO_MAX),
        "sequential_search_p95_le_1.5x_peer": within("sequential_search_p95_ms",
                                                     SEQ_P95_RATIO_MAX),
        "concurrent_throughput_ge_peer": (ratios["concurrent_ops_per_s"] or 0) >= 1.0,
        "concurrent_p99_le_peer": within("concurrent_p99_ms", 1.0),
        "recall_higher_every_category": bool(cats) and all(e > p for e, p in cats.values()),
    }
    return {"ratios_engram_over_peer": ratios, "targets_met": targets}


# --------------------------------------------------------------------- main


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--lone-n", type=int, default=200, help="sequential calls per tool")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--concurrent-s", type=float, default=30.0, help="seconds per round")
    parser.add_argument("--rounds", type=int, default=2, help="load rounds per system")
    parser.add_argument("--port-offset", type=int, default=500)
    parser.add_argument("--peer-port", type=int, default=18766)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo10.json")
    parser.add_argument("--audit", type=Path, default=DEFAULT_AUDIT)
    args = parse_with_smoke(parser, {"conversations": 1, "lone_n": 20, "concurrent_s": 5.0,
                                     "rounds": 1})
    if not args.data.exists():
        parser.error(f"{args.data} not found: pass LoCoMo's locomo10.json with --data")
    out = sys.stdout
    started_at = datetime.now(UTC)
    load_at_start = os.getloadavg()[0]
    code = git_state()
    convs = load_conversations(args.data, args.audit if args.audit.exists() else None,
                               args.conversations)
    t0 = time.monotonic()
    venv, model = ensure_installed()
    install_s = time.monotonic() - t0
    encoder = SentenceTransformerBackend("", "cpu")
    data_dir = Path(tempfile.mkdtemp(prefix="engram-peers-"))
    home = Path(tempfile.mkdtemp(prefix="engram-peer-"))
    home.chmod(0o755)
    peer = PeerDaemon(venv, model, home / "peer", args.peer_port)
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        peer.prepare(principals=1)
        peer_start_s = peer.start()
        t0 = time.monotonic()
        stack.start()
        engram_start_s = time.monotonic() - t0
        token = stack.principals.create(
            "peers", "agent", [*(c.namespace for c in convs), "peers-lone", "peers-lone-warmup",
                               *(f"peers-load-r{r}-c{i}" for r in range(args.rounds)
                                 for i in range(args.clients)), *b2b_namespaces(args)])
        eng, pt = engram_target(stack, token), peer_target(peer)
        encode_idle = idle_encode_p50_ms(encoder, [t.text for t in convs[0].turns][:100])
        b2b = asyncio.run(back_to_back(eng, pt, convs, args, stack.service_dsn("memory"), out))
        rec = asyncio.run(recall(eng, pt, convs, stack.service_dsn("memory"), out))
        lat = asyncio.run(latency(stack, eng, pt, convs, args, out))
    finally:
        stack.stop()
        peer.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    result = {
        "timestamp": started_at.isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": platform.python_version(),
                    "loadavg_1m_at_start": round(load_at_start, 2),
                    "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
        "command": command_line(), "git": code,
        "peer": {"package": PACKAGE, "install_s": round(install_s, 1),
                 "cold_start_s": round(peer_start_s, 1),
                 "embedding": "all-MiniLM-L6-v2 zero-padded to 1024-d (see "
                              "reliability_peer_daemon)"},
        "engram": {"cold_start_s": round(engram_start_s, 1)},
        "dataset": {"file": args.data.name, "conversations": [c.sample_id for c in convs],
                    "turns": sum(len(c.turns) for c in convs),
                    "questions": sum(len(c.questions) for c in convs)},
        "encode_idle_p50_ms": encode_idle,
        "recall_phase": rec, **lat, **verdicts(rec, lat), "back_to_back": b2b,
        "settings": {"top_k_recall": TOP_K, "top_k_latency": 10, "lone_n": args.lone_n,
                     "clients": args.clients, "concurrent_s": args.concurrent_s,
                     "rounds": args.rounds, "warmup": WARMUP,
                     "peer_search": "sources=[conversation], min_score 0 in the recall phase; "
                                    "shipped defaults otherwise"},
    }
    path = results_dir() / f"peers-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)

    path.write_text(json.dumps(result, indent=2) + "\n")
    for name in ("engram", "peer"):
        r = rec[name]["recall"]["turn"]
        s = lat["sequential"][name]
        c = lat["concurrent"][name]
        out.write(f"{name:6s} r@10 {r['r@10']:.3f} | store p50 {s['store']['p50_ms']} p95 "
                  f"{s['store']['p95_ms']} | search p50 {s['search']['p50_ms']} p95 "
                  f"{s['search']['p95_ms']} | x{args.clients}: {c['ops_per_s']} ops/s "
                  f"p99 {c['p99_ms']} ms\n")
    out.write(f"back to back (empty stores, nothing waited for), engram / peer: "
              f"{b2b['ratios_engram_over_peer']}\n")
    out.write(f"targets: {result['targets_met']}\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
