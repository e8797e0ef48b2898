"""LoCoMo evidence recall through the real stack over MCP, with in-run baselines.

Starts the embedded stack (the same `Stack` that `engram up` drives) in a fresh
data directory, ingests each LoCoMo conversation through MCP `memory_store`
(one dialog turn per memory, one namespace per conversation, one episode per
LoCoMo session via episode_start/episode_end, as an agent that opens a session
per conversation would have), then asks every
category 1-4 question through MCP `memory_search` (top_k=50) in its
conversation's namespace and scores evidence recall@k at turn and session
level. In the same run, on the identical turn texts, it scores five
baselines: Okapi BM25 (plain tokens, and stemmed with stop words removed as
Postgres' english configuration does), dense cosine with the same MiniLM model
(in-process), and the reciprocal rank fusion of each BM25 with dense. It also
times store and search, and a bare in-process single-sentence encode
interleaved with the stores (same load), so store latency can be read against the model's own cost.

Data: LoCoMo's locomo10.json (CC BY-NC 4.0, never copied into the repo; pass
its path with --data). Evidence ids are normalised by `normalise_evidence`,
and the 57 WRONG_CITATION records of the locomo-audit file replace the cited
evidence when the file is present
(`--no-audit` scores the raw labels; the raw-label numbers are reported too).

Usage: .venv/bin/python -m evals.bench.locomo [--conversations 10] [--port-offset 400]
Writes evals/results/locomo-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx2
import numpy as np
import snowballstemmer
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram_embedder.backend import SentenceTransformerBackend
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.harness.benchlib import (
    command_line,
    git_state,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
    tool_call,
)
from evals.harness.locomo_split import DESCRIPTION, SPLITS

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = results_dir()
DEFAULT_DATA = Path("/work/shared/bench/locomo10.json")
DEFAULT_AUDIT = Path("/work/shared/bench/locomo-audit/errors.json")
KS = (1, 5, 10, 20, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TOP_K = 50
WARMUP = 5  # untimed store/search calls in a scratch namespace before measuring
ENCODE_SENTENCES = 100
BM25_K1, BM25_B, RRF_K = 1.5, 0.75, 60
TURN_ID = re.compile(r"D(\d+):(\d+)")
SESSION_KEY = re.compile(r"session_(\d+)")
WORD = re.compile(r"[a-z0-9]+")
MEMORY_SCHEMA = "memory"  # engram_memory.main.SCHEMA


# --------------------------------------------------------------------------- data


@dataclass
class Turn:
    dia_id: str  # canonical "D<session>:<turn>"
    session: int
    text: str  # the memory text, identical for engram and the baselines
    valid_from: str  # ISO date-time of its session


@dataclass
class Question:
    qid: str  # locomo_<conv index>_qa<qa index>, as in the audit file
    question: str
    category: int
    gold: list[str]  # audit-corrected where the audit says WRONG_CITATION
    gold_raw: list[str]


@dataclass
class Conversation:
    sample_id: str
    namespace: str
    turns: list[Turn]
    questions: list[Question] = field(default_factory=list)


def locomo_date(value: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08T13:56:00'."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").isoformat()


def normalise_evidence(raw: list[Any], existing: set[str]) -> list[str]:
    """Split on ';' and whitespace, 'D:' -> 'D', drop zero padding and unknown turns."""
    out: list[str] = []
    for item in raw:
        for piece in re.split(r"[;\s]+", str(item)):
            m = TURN_ID.fullmatch(piece.replace("D:", "D"))
            if not m:
                continue
            dia = f"D{int(m.group(1))}:{int(m.group(2))}"
            if dia in existing and dia not in out:
                out.append(dia)
    return out


def load_conversations(path: Path, audit_path: Path | None, limit: int) -> list[Conversation]:
    samples = json.loads(path.read_text())
    corrections: dict[str, list[str]] = {}
    if audit_path is not None:
        for rec in json.loads(audit_path.read_text()):
            if rec["error_type"] == "WRONG_CITATION":
                corrections[rec["question_id"]] = rec["correct_evidence"]
    out: list[Conversation] = []
    for ci, sample in enumerate(samples[:limit]):
        conv = sample["conversation"]
        sessions = sorted(int(m.group(1)) for k in conv if (m := SESSION_KEY.fullmatch(k)))
        turns: list[Turn] = []
        for n in sessions:  # iterate turn lists, not date keys (conv-26 quirk)
            when = locomo_date(conv[f"session_{n}_date_time"])
            for t in conv[f"session_{n}"]:
                m = TURN_ID.fullmatch(t["dia_id"])
                if m is None:
                    raise ValueError(f"{sample['sample_id']}: turn id {t['dia_id']!r}"
                                     " is not D<session>:<turn>")
                dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [shares {t['blip_caption']}]"
                turns.append(Turn(dia, n, text, when))
        existing = {t.dia_id for t in turns}
        c = Conversation(sample["sample_id"], f"locomo-{sample['sample_id']}", turns)
        for qi, qa in enumerate(sample["qa"]):
            if qa["category"] not in CATEGORIES:
                continue
            qid = f"locomo_{ci}_qa{qi}"
            evidence: list[Any] = qa.get("evidence", [])
            raw = normalise_evidence(evidence, existing)
            gold = normalise_evidence(corrections.get(qid, evidence), existing)
            c.questions.append(Question(qid, qa["question"], qa["category"], gold, raw))
        out.append(c)
    return out


# --------------------------------------------------------------------------- scoring


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":")[0])


def recall_at(ranked: list[list[str]], gold: list[str], k: int, level: str) -> float:
    """ranked: one list of dia ids per rank position (an engram entry can stand for
    several turns with identical text). Turn level: |G ∩ R_k| / |G|; session
    level: the same over the sessions of G and of the top-k turns."""
    top = {d for pos in ranked[:k] for d in pos}
    if level == "session":
        want = {session_of(d) for d in gold}
        return len(want & {session_of(d) for d in top}) / len(want)
    return len(set(gold) & top) / len(gold)


def score(rankings: dict[str, list[list[str]]], questions: list[Question],
          gold_field: str = "gold") -> dict[str, Any]:
    def block(qs: list[Question], level: str) -> dict[str, float]:
        return {f"r@{k}": round(statistics.fmean(
            recall_at(rankings[q.qid], getattr(q, gold_field), k, level) for q in qs), 4)
            for k in KS}

    scored = [q for q in questions if getattr(q, gold_field)]
    per_cat = {}
    for cat, name in CATEGORIES.items():
        qs = [q for q in scored if q.category == cat]
        if qs:
            per_cat[str(cat)] = {"name": name, "n": len(qs), "turn": block(qs, "turn"),
                                 "session": block(qs, "session")}
    return {"n": len(scored), "turn": block(scored, "turn"), "session": block(scored, "session"),
            "per_category": per_cat}


# --------------------------------------------------------------------------- baselines


# Postgres' english.stop list (src/backend/snowball/stopwords/english.stop).
PG_STOP = {"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
           "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
           "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
           "what", "which", "who", "whom", "this", "that", "these", "those", "am", "is", "are",
           "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does",
           "did", "doing", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until",
           "while", "of", "at", "by", "for", "with", "about", "against", "between", "into",
           "through", "during", "before", "after", "above", "below", "to", "from", "up", "down",
           "in", "out", "on", "off", "over", "under", "again", "further", "then", "once", "here",
           "there", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more",
           "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so",
           "than", "too", "very", "s", "t", "can", "will", "just", "don", "should", "now"}


class BM25:
    """Okapi BM25, idf = ln((N - df + 0.5) / (df + 0.5) + 1), over lower-cased
    alphanumeric tokens, or with `stem` over Snowball-English stems minus
    Postgres' English stop words (what an 'english' text search config does)."""

    def __init__(self, docs: list[str], stem: bool = False, k1: float = BM25_K1,
                 b: float = BM25_B) -> None:
        self.k1, self.b = k1, b
        self._stemmer = snowballstemmer.stemmer("english") if stem else None
        self.tf = [Counter(self.terms(d)) for d in docs]
        lens = [sum(tf.values()) for tf in self.tf]
        avg = statistics.fmean(lens) if docs else 0.0
        self.norm = [k1 * (1 - b + b * n / avg) for n in lens]
        self.df: Counter = Counter()
        for tf in self.tf:
            self.df.update(tf.keys())
        self.n = len(docs)
        self.idf = {t: math.log((self.n - c + 0.5) / (c + 0.5) + 1.0) for t, c in self.df.items()}

    def terms(self, text: str) -> list[str]:
        words = WORD.findall(text.lower())
        if self._stemmer is None:
            return words
        return self._stemmer.stemWords([w for w in words if w not in PG_STOP])

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.n)
        terms = [t for t in set(self.terms(query)) if t in self.idf]
        for i, tf in enumerate(self.tf):
            for t in terms:
                f = tf.get(t, 0)
                if f:
                    out[i] += self.idf[t] * f * (self.k1 + 1) / (f + self.norm[i])
        return out

    def selective_scores(self, query: str, max_df: float) -> np.ndarray:
        """What the memory service computes: only terms in at most max_df of
        the rows (or at most 3; the rarest one if none is), tf taken as 1."""
        known = sorted((self.df[t], t) for t in set(self.terms(query)) if t in self.idf)
        terms = [t for d, t in known if d <= max(max_df * self.n, 3)] or [t for _, t in known[:1]]
        out = np.zeros(self.n)
        for i, tf in enumerate(self.tf):
            for t in terms:
                if t in tf:
                    out[i] += self.idf[t] * (self.k1 + 1) / (1 + self.norm[i])
        return out


def rank(scores: np.ndarray) -> list[int]:
    """Indices by descending score; ties keep document order (stable)."""
    return [int(i) for i in np.argsort(-scores, kind="stable")]


def rrf(*rankings: list[int], k: int = RRF_K) -> list[int]:
    fused: dict[int, float] = {}
    for ranking in rankings:
        for r, doc in enumerate(ranking, start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + r)
    return sorted(fused, key=lambda d: -fused[d])


def baselines(convs: list[Conversation], encoder: SentenceTransformerBackend
              ) -> dict[str, dict[str, list[list[str]]]]:
    out: dict[str, dict[str, list[list[str]]]] = {
        "bm25": {}, "bm25-stem": {}, "dense": {}, "rrf": {}, "rrf-stem": {}}
    for c in convs:
        texts = [t.text for t in c.turns]
        ids = [t.dia_id for t in c.turns]
        bm25, bm25_stem = BM25(texts), BM25(texts, stem=True)
        doc_vecs = encoder.encode(texts).vectors
        q_vecs = encoder.encode([q.question for q in c.questions]).vectors
        for q, qv in zip(c.questions, q_vecs, strict=True):
            lex = rank(bm25.scores(q.question))
            lex_stem = rank(bm25_stem.scores(q.question))
            dense = rank(doc_vecs @ qv)
            for name, order in (("bm25", lex), ("bm25-stem", lex_stem), ("dense", dense),
                                ("rrf", rrf(lex, dense)), ("rrf-stem", rrf(lex_stem, dense))):
                out[name][q.qid] = [[ids[i]] for i in order[:TOP_K]]
    return out


def split_scores(convs: list[Conversation], engram: dict[str, list[list[str]]],
                 base: dict[str, dict[str, list[list[str]]]],
                 tokens: dict[str, float]) -> dict[str, Any]:
    """engram and the baselines on the tuning and the held-out half
    (harness/locomo_split.py), for the conversations this run covered."""
    out: dict[str, Any] = {}
    for name, ids in SPLITS.items():
        qs = [q for c in convs if c.sample_id in ids for q in c.questions]
        if not any(q.gold for q in qs):
            continue
        engram_s = score(engram, qs)
        out[name] = {"conversations": [c.sample_id for c in convs if c.sample_id in ids],
                     "n": engram_s["n"],
                     "context_tokens_at_10": round(statistics.fmean(
                         tokens[q.qid] for q in qs if q.gold), 1),
                     "engram": {k: engram_s[k] for k in ("turn", "session", "per_category")},
                     "baselines": {b: score(r, qs)["turn"] for b, r in base.items()}}
    return out


# --------------------------------------------------------------------------- engram


def ms_summary(samples_s: list[float]) -> tuple[float, float]:
    ms = [s * 1000 for s in samples_s]
    p95 = statistics.quantiles(ms, n=100, method="inclusive")[94] if len(ms) > 1 else ms[0]
    return round(statistics.median(ms), 3), round(p95, 3)


async def unembedded(dsn: str, namespace: str) -> int:
    conn = await asyncpg.connect(dsn, server_settings={"search_path": f'"{MEMORY_SCHEMA}"'})
    try:
        async with conn.transaction():
            await conn.execute("SELECT set_config('engram.namespace', $1, true)", namespace)
            # Rows still waiting for their own vector or their context vector.
            return await conn.fetchval(
                "SELECT (SELECT count(*) FROM live_entries WHERE embedding IS NULL)"
                " + (SELECT count(*) FROM context_vector_queue)")
    finally:
        await conn.close()


async def run_engram(stack: Stack, token: str, convs: list[Conversation],
                     encoder: SentenceTransformerBackend, out: Any) -> dict[str, Any]:
    dsn = stack.service_dsn("memory")
    store_s: list[float] = []
    encode_s: list[float] = []  # bare in-process encodes, interleaved with the stores
    encode_every = max(1, sum(len(c.turns) for c in convs) // ENCODE_SENTENCES)
    n_stored = 0
    search_s: list[float] = []
    findings: Counter = Counter()
    modes: Counter = Counter()
    stored_without_vector = 0
    reembed_wait_s = 0.0
    rankings: dict[str, list[list[str]]] = {}
    # Per conversation: dia ids whose entry a later write superseded (no longer served).
    retired: dict[str, set[str]] = {}
    context_tokens: dict[str, float] = {}

    call = tool_call

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60.0)
    try:
        async with Client(streamable_http_client(stack.mcp_url, http_client=http)) as client:
            for i in range(WARMUP):
                await call(client, "memory_store", {"text": f"warm-up memory number {i}",
                                                    "namespace": "locomo-warmup"})
                await call(client, "memory_search", {"query": f"warm-up {i}", "top_k": TOP_K,
                                                     "namespace": "locomo-warmup"})
            for c in convs:
                t_conv = time.perf_counter()
                by_id: dict[str, list[str]] = {}
                superseded: set[str] = set()
                session = None
                for turn in c.turns:
                    if turn.session != session:  # one episode per LoCoMo session
                        if session is not None:
                            await call(client, "episode_end", {"namespace": c.namespace})
                        await call(client, "episode_start", {
                            "title": f"{c.sample_id} session {turn.session}",
                            "namespace": c.namespace})
                        session = turn.session
                    args = {"text": turn.text, "tags": [turn.dia_id.lower()],
                            "source": c.sample_id, "valid_from": turn.valid_from,
                            "namespace": c.namespace}
                    t0 = time.perf_counter()
                    reply = await call(client, "memory_store", args)
                    store_s.append(time.perf_counter() - t0)
                    n_stored += 1
                    if n_stored % encode_every == 0:  # same text, same moment's load
                        t0 = time.perf_counter()
                        encoder.encode([turn.text])
                        encode_s.append(time.perf_counter() - t0)
                    findings[reply["finding"]] += 1
                    stored_without_vector += not reply["embedded"]
                    # A restatement returns the existing entry's id: that entry then
                    # stands for every turn with the same (normalised) text.
                    by_id.setdefault(reply["id"], []).append(turn.dia_id)
                    superseded.update(reply.get("superseded", []))
                await call(client, "episode_end", {"namespace": c.namespace})
                retired[c.sample_id] = {d for i in superseded for d in by_id.get(i, [])}
                t_wait = time.perf_counter()
                while (left := await unembedded(dsn, c.namespace)) > 0:
                    if time.perf_counter() - t_wait > 600:
                        raise RuntimeError(f"{left} entries of {c.namespace} still unembedded")
                    await asyncio.sleep(1.0)
                reembed_wait_s += time.perf_counter() - t_wait
                for q in c.questions:
                    args = {"query": q.question, "top_k": TOP_K, "namespace": c.namespace}
                    t0 = time.perf_counter()
                    reply = await call(client, "memory_search", args)
                    search_s.append(time.perf_counter() - t0)
                    modes[reply["mode"]] += 1
                    entries = reply["entries"]
                    rankings[q.qid] = [by_id.get(e["id"]) or [t.upper() for t in e["tags"]]
                                       for e in entries]
                    context_tokens[q.qid] = sum(len(e["text"]) / 4 for e in entries[:10])
                out.write(f"{c.sample_id}: {len(c.turns)} stores, {len(c.questions)} searches "
                          f"in {time.perf_counter() - t_conv:.0f}s\n")
                out.flush()
    finally:
        await http.aclose()
    store_p50, store_p95 = ms_summary(store_s)
    search_p50, search_p95 = ms_summary(search_s)
    encode_p50, encode_p95 = ms_summary(encode_s)
    return {
        "rankings": rankings, "context_tokens": context_tokens, "retired": retired,
        "latency": {"store_p50_ms": store_p50, "store_p95_ms": store_p95,
                    "search_p50_ms": search_p50, "search_p95_ms": search_p95,
                    "encode_p50_ms": encode_p50, "encode_p95_ms": encode_p95,
                    "store_over_encode_p50": round(store_p50 / encode_p50, 2),
                    "n_store": len(store_s), "n_search": len(search_s),
                    "n_encode": len(encode_s)},
        "store_findings": dict(findings), "stored_without_vector": stored_without_vector,
        "reembed_wait_s": round(reembed_wait_s, 1), "search_modes": dict(modes),
    }


def idle_encode_p50_ms(encoder: SentenceTransformerBackend, sentences: list[str]) -> float:
    for s in sentences[:5]:
        encoder.encode([s])
    samples = []
    for s in sentences:
        t0 = time.perf_counter()
        encoder.encode([s])
        samples.append(time.perf_counter() - t0)
    return round(statistics.median(samples) * 1000, 3)


# --------------------------------------------------------------------------- main


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=10,
                        help="how many conversations, from the first (default all 10)")
    parser.add_argument("--port-offset", type=int, default=400,
                        help="added to every port of the stack (default 400)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="stack data dir; must be empty or absent (default: a fresh temp "
                             "dir, deleted afterwards)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo10.json")
    parser.add_argument("--audit", type=Path, default=DEFAULT_AUDIT,
                        help="locomo-audit errors.json (WRONG_CITATION corrections)")
    parser.add_argument("--no-audit", action="store_true", help="score the raw evidence labels")
    parser.add_argument("--split", choices=sorted(SPLITS), default=None,
                        help="only the conversations of one half (harness/locomo_split.py), of "
                             "the first --conversations")
    args = parse_with_smoke(parser, {"conversations": 1})
    if not 1 <= args.conversations <= 10:
        parser.error("--conversations must be 1-10")
    if not args.data.exists():
        parser.error(f"{args.data} not found: pass LoCoMo's locomo10.json with --data")
    audit = None if args.no_audit or not args.audit.exists() else args.audit

    out = sys.stdout
    started_at = datetime.now(UTC)
    load_at_start = os.getloadavg()[0]
    code = git_state()  # before the services start: the code they load
    convs = [c for c in load_conversations(args.data, audit, args.conversations)
             if args.split is None or c.sample_id in SPLITS[args.split]]
    if not convs:
        parser.error(f"none of the first {args.conversations} conversations is in {args.split}")
    if args.data_dir is None:
        data_dir, owned = Path(tempfile.mkdtemp(prefix="engram-locomo-")), True
    else:
        data_dir, owned = args.data_dir, False
        if data_dir.exists() and any(data_dir.iterdir()):
            parser.error(f"--data-dir {data_dir} is not empty: recall needs fresh namespaces")
    n_turns = sum(len(c.turns) for c in convs)
    n_q = sum(len(c.questions) for c in convs)
    out.write(f"{len(convs)} conversations, {n_turns} turns, {n_q} cat 1-4 questions; "
              f"data dir {data_dir}, port offset {args.port_offset}\n")
    out.flush()

    encoder = SentenceTransformerBackend("", "cpu")
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        t0 = time.perf_counter()
        stack.start()
        out.write(f"stack ready in {time.perf_counter() - t0:.1f}s at {stack.mcp_url}\n")
        sentences = [t.text for c in convs for t in c.turns][:ENCODE_SENTENCES]
        encode_idle_p50 = idle_encode_p50_ms(encoder, sentences)
        out.write(f"bare encode p50 {encode_idle_p50:.2f} ms over {len(sentences)} sentences "
                  "(stack idle)\n")
        out.flush()
        token = stack.principals.create(
            "locomo", "agent", ["locomo-warmup", *(c.namespace for c in convs)])
        engram = asyncio.run(run_engram(stack, token, convs, encoder, out))
    finally:
        stack.stop()
        if owned:
            shutil.rmtree(data_dir, ignore_errors=True)

    t0 = time.perf_counter()
    base = baselines(convs, encoder)
    out.write(f"baselines in {time.perf_counter() - t0:.0f}s\n")

    questions = [q for c in convs for q in c.questions]
    by_split = split_scores(convs, engram["rankings"], base, engram["context_tokens"])
    engram_scores = score(engram["rankings"], questions)
    base_scores = {name: score(r, questions) for name, r in base.items()}
    raw = {name: score(r, questions, "gold_raw")
           for name, r in {"engram": engram["rankings"], **base}.items()}
    scored_ids = {q.qid for q in questions if q.gold}
    retired = engram["retired"]
    evidence = {(c.sample_id, d) for c in convs for q in c.questions for d in q.gold}
    retired_pairs = {(sid, d) for sid, ds in retired.items() for d in ds}
    hit_by_retirement = [q for c in convs for q in c.questions
                         if retired.get(c.sample_id, set()) & set(q.gold)]
    best_name = max(base_scores, key=lambda n: base_scores[n]["turn"]["r@10"])
    best_r10 = base_scores[best_name]["turn"]["r@10"]
    latency = {**engram["latency"], "encode_idle_p50_ms": encode_idle_p50}

    result = {
        "timestamp": started_at.isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": platform.python_version(),
                    "loadavg_1m_at_start": round(load_at_start, 2),
                    "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
        "command": command_line(),
        "dataset": {"file": str(args.data),
                    "sha256": hashlib.sha256(args.data.read_bytes()).hexdigest(),
                    "conversations": [c.sample_id for c in convs], "turns": n_turns,
                    "evidence": "audit-corrected (WRONG_CITATION)" if audit else "raw",
                    "questions_cat1_4": n_q,
                    "excluded_no_valid_evidence": n_q - len(scored_ids)},
        "n_questions": engram_scores["n"],
        "split": DESCRIPTION,
        "by_split": by_split,
        "engram": {k: engram_scores[k] for k in ("turn", "session", "per_category")},
        "baselines": {n: {k: s[k] for k in ("turn", "session", "per_category")}
                      for n, s in base_scores.items()},
        "raw_evidence": {n: {"n": s["n"], "turn": s["turn"], "session": s["session"]}
                         for n, s in raw.items()},
        "latency": latency,
        "context_tokens_at_10": round(statistics.fmean(
            engram["context_tokens"][qid] for qid in scored_ids), 1),
        "best_baseline": best_name,
        "best_baseline_turn_r10": best_r10,
        "engram_minus_best_baseline_turn_r10": round(engram_scores["turn"]["r@10"] - best_r10, 4),
        "engram_run": {
            **{k: engram[k] for k in ("store_findings", "stored_without_vector",
                                      "reembed_wait_s", "search_modes")},
            # Turns whose entry the write path retired (finding "update" on a later
            # turn): search serves live entries only, so these cannot be found.
            "turns_superseded": len(retired_pairs),
            "evidence_turns_superseded": len(evidence & retired_pairs),
            "questions_with_superseded_evidence": len(hit_by_retirement),
        },
        "git": code,
        "settings": {"top_k": TOP_K, "ks": list(KS), "bm25": {"k1": BM25_K1, "b": BM25_B},
                     "rrf_k": RRF_K, "dense_model": encoder.model,
                     "warmup_calls": WARMUP, "encode_idle_sentences": len(sentences),
                     "encode_every_nth_store": max(1, n_turns // ENCODE_SENTENCES)},
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"locomo-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")

    def line(name: str, s: dict[str, Any]) -> str:
        t = s["turn"]
        return (f"{name:7s} turn " + " ".join(f"{k} {v:.3f}" for k, v in t.items())
                + f" | session r@10 {s['session']['r@10']:.3f}\n")

    out.write(line("engram", engram_scores))
    for name, s in base_scores.items():
        out.write(line(name, s))
    out.write(f"store p50 {latency['store_p50_ms']:.1f} p95 {latency['store_p95_ms']:.1f} ms, "
              f"search p50 {latency['search_p50_ms']:.1f} p95 {latency['search_p95_ms']:.1f} ms, "
              f"encode p50 {latency['encode_p50_ms']:.2f} ms "
              f"(idle {latency['encode_idle_p50_ms']:.2f}), "
              f"store/encode {latency['store_over_encode_p50']}\n")
    out.write(f"wrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
