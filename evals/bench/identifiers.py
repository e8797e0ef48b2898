"""Identifier recall: do hosts, paths, versions, symbols and ids keep their shape?

The query set is `evals/data/identifiers.json` (committed, written for this
benchmark): 45 short memories, 36 queries that each name one identifier, whose
gold entry holds it exactly while distractors hold its pieces or a near miss
(`api-v2.internal:8080` for `:8443`, `v1.2.3-rc2` for `-rc1`, `ERR_CONN_REFUSED`
for `ERR_CONN_RESET`).

In one run, on one embedded stack (the code `engram up` runs):
  service     every memory stored through MCP `memory_store`, every query asked
              through `memory_search` (top_k 10): the whole path as it is.
  lexical-*   the lexical channel alone, in-process: the service's BM25 (tf=1,
              b=0, k1 1.2, terms on more than 10% of rows unused, the rarest
              always used) over the lexemes that Postgres itself makes of the
              same texts, with `english` alone (`to_tsvector`, the tokenizer
              before migration 0023: "old") and with the identifier tokens
              (`engram_tsvector`: "new")
  fused-*     the same fused with the dense channel (all-MiniLM-L6-v2, in
              process) as the service fuses them (RRF k=5, lexical x1.5)
R@k is the share of a query's gold entries in its first k.

Usage: .venv/bin/python -m evals.bench.identifiers [--port-offset N]
Writes evals/results/identifiers-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import shutil
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx2
import numpy as np
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram_embedder.backend import SentenceTransformerBackend
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.bench.locomo import MEMORY_SCHEMA, unembedded
from evals.harness.benchlib import (
    REPO_ROOT,
    command_line,
    git_state,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
    tool_call,
)

DATA = REPO_ROOT / "evals" / "data" / "identifiers.json"
KS = (1, 5, 10)
NAMESPACE = "identifiers"
K1, MAX_DF, RRF_K, W_LEX = 1.2, 0.1, 5, 1.5
FAMILIES = [  # near misses of the query set's identifiers, filled in at random
    "The {w} gateway listens on api-v{d}.internal:{port} for the {w} team.",
    "Release v{d}.{d}.{d}-rc{d} went to {w} with the {w} fix.",
    "Release v{d}.{d}.{d} is what {w} runs in production.",
    "Join on {w}_id when you read the {w} table; user_{w} is not indexed.",
    "The {w} table has an id column and a user column for the {w} owner.",
    "{C}::{w}() is called by {C}::bar_{w}() on every {w} request.",
    "Foo::{w}() and Bar::{w}() both touch the {w} cache.",
    "The {w} site is configured in /etc/nginx/conf.d/{w}.conf, reload nginx after edits.",
    "Tenant {uuid} reported a {w} problem in the {w} service.",
    "Clients log ERR_{W}_{W2} when the {w} connection is reset or refused.",
    "ERR_CONN_{W} shows up when the {w} link is slow; reset the {w} tunnel.",
    "{W}_URL points at the {w} host; DATABASE_{W} is for {w} jobs.",
    "OPS-{n} tracks the {w} work on the {w} proxies.",
    "The {w} deployment runs in namespace prod-{w}-west-{d}.",
    "Pages about {w} go to {w}@example.com.",
    "The {w} service writes /var/log/engram/{w}.log and rotates it daily.",
    "utils.{w}_with_backoff() and utils.{w}() wrap the {w} client.",
    "Commit {hex} changed the {w} schema on the orders table.",
    "Pin numpy=={d}.{d}{d}.{d} for the {w} wheel.",
]
WORDS = ("billing", "search", "ingest", "auth", "ledger", "report", "export", "import", "mail",
         "cache", "queue", "admin", "worker", "edge", "backup", "metrics", "audit", "upload",
         "preview", "sync", "notify")
TOKENIZERS = {"old": "to_tsvector('english', $1)", "new": "engram_tsvector($1)"}


def distractors(n: int, wanted: set[str], seed: int = 7) -> list[dict[str, str]]:
    """n near-miss rows (seeded): none holds a query's identifier whole."""
    from engram_memory.identifiers import identifier_tokens

    rnd = random.Random(seed)
    out: list[dict[str, str]] = []
    while len(out) < n:
        w = rnd.choice(WORDS)
        template = rnd.choice(FAMILIES)
        while "{d}" in template:  # each digit drawn on its own
            template = template.replace("{d}", str(rnd.randint(0, 9)), 1)
        text = template.format(
            w=w, W=w.upper(), C=w.capitalize(), W2=rnd.choice(WORDS).upper(),
            port=rnd.choice((80, 443, 8080, 8443, 9000, 9443)), n=rnd.randint(1000, 1999),
            uuid=str(uuid.UUID(int=rnd.getrandbits(128))), hex=f"{rnd.getrandbits(28):07x}")
        if not set(identifier_tokens(text)) & wanted and text not in {o["text"] for o in out}:
            out.append({"key": f"noise-{len(out)}", "text": text})
    return out


def bm25(docs: list[set[str]], query: set[str]) -> np.ndarray:
    """The service's lexical score (repo.lexical_ranked with its defaults)."""
    n = len(docs)
    df = {t: sum(t in d for d in docs) for t in query}
    known = sorted((c, t) for t, c in df.items() if c)
    used = [t for c, t in known if c <= max(MAX_DF * n, 3)] or [t for _, t in known[:1]]
    out = np.zeros(n)
    for t in used:
        idf = math.log((n - df[t] + 0.5) / (df[t] + 0.5) + 1)
        out += np.array([t in d for d in docs]) * idf * (K1 + 1) / (1 + K1)
    return out


def ranked(scores: np.ndarray, matches_only: bool) -> list[int]:
    order = [int(i) for i in np.argsort(-scores, kind="stable")]
    return [i for i in order if scores[i] > 0] if matches_only else order


def fuse(lex: list[int], dense: list[int], n: int) -> list[int]:
    score = np.zeros(n)
    for w, ranking in ((W_LEX, lex), (1.0, dense)):
        for r, i in enumerate(ranking, start=1):
            score[i] += w / (RRF_K + r)
    return ranked(score, True)


def recall(rankings: list[list[str]], golds: list[list[str]]) -> dict[str, float]:
    return {f"r@{k}": round(float(np.mean([len(set(r[:k]) & set(g)) / len(g)
                                           for r, g in zip(rankings, golds, strict=True)])), 4)
            for k in KS}


async def lexemes(dsn: str, texts: list[str]) -> dict[str, list[set[str]]]:
    conn = await asyncpg.connect(dsn, server_settings={"search_path": f'"{MEMORY_SCHEMA}"'})
    try:
        return {name: [set(await conn.fetchval(f"SELECT tsvector_to_array({expr})", t))
                       for t in texts] for name, expr in TOKENIZERS.items()}
    finally:
        await conn.close()


async def through_service(stack: Stack, token: str, data: dict[str, Any]) -> dict[str, Any]:
    call = tool_call

    key_of: dict[str, str] = {}
    retired: set[str] = set()
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60.0)
    try:
        async with Client(streamable_http_client(stack.mcp_url, http_client=http)) as client:
            for e in data["entries"]:
                reply = await call(client, "memory_store", {"text": e["text"],
                                                            "namespace": NAMESPACE})
                key_of[reply["id"]] = e["key"]
                retired.update(reply.get("superseded", []))
            while await unembedded(stack.postgres.admin_dsn, NAMESPACE):
                await asyncio.sleep(0.5)
            rankings = []
            for q in data["queries"]:
                reply = await call(client, "memory_search", {"query": q["query"], "top_k": 10,
                                                             "namespace": NAMESPACE})
                rankings.append([key_of.get(e["id"], "?") for e in reply["entries"]])
    finally:
        await http.aclose()
    return {"rankings": rankings, "superseded": sorted(key_of[i] for i in retired)}


def in_process(data: dict[str, Any], lex: dict[str, list[set[str]]],
               encoder: SentenceTransformerBackend) -> dict[str, list[list[str]]]:
    keys = [e["key"] for e in data["entries"]]
    n = len(keys)
    docs = encoder.encode([e["text"] for e in data["entries"]]).vectors
    qvecs = encoder.encode([q["query"] for q in data["queries"]]).vectors
    out: dict[str, list[list[str]]] = {}
    for name in TOKENIZERS:
        doc_terms, q_terms = lex[name][:n], lex[name][n:]
        lexical = [ranked(bm25(doc_terms, qt), True) for qt in q_terms]
        dense = [ranked(docs @ qv, False) for qv in qvecs]
        out[f"lexical-{name}"] = [[keys[i] for i in r] for r in lexical]
        out[f"fused-{name}"] = [[keys[i] for i in fuse(lr, dr, n)]
                                for lr, dr in zip(lexical, dense, strict=True)]
    return out


def main() -> int:
    stop_stack_on_sigterm()
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--port-offset", type=int, default=450)
    ap.add_argument("--distractors", type=int, default=400,
                    help="generated near-miss rows stored beside the query set's (default 400)")
    args = parse_with_smoke(ap, {"distractors": 20})
    data = json.loads(DATA.read_text())
    from engram_memory.identifiers import identifier_tokens
    wanted = {t for q in data["queries"] for t in identifier_tokens(q["query"])}
    data["entries"] += distractors(args.distractors, wanted)
    # Stored in a shuffled order: ties (in the service and in-process) then
    # fall to no side.
    random.Random(11).shuffle(data["entries"])
    golds = [q["gold"] for q in data["queries"]]
    started = datetime.now(UTC)
    code = git_state()
    encoder = SentenceTransformerBackend("", "cpu")
    data_dir = Path(tempfile.mkdtemp(prefix="engram-ident-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        stack.start()
        token = stack.principals.create("ident", "agent", [NAMESPACE])
        served = asyncio.run(through_service(stack, token, data))
        texts = [e["text"] for e in data["entries"]] + [q["query"] for q in data["queries"]]
        lex = asyncio.run(lexemes(stack.postgres.admin_dsn, texts))
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    rankings = {"service": served["rankings"], **in_process(data, lex, encoder)}
    scores = {name: recall(r, golds) for name, r in rankings.items()}
    missed = {name: [q["query"] for q, r, g in zip(data["queries"], rs, golds, strict=True)
                     if not set(r[:5]) & set(g)] for name, rs in rankings.items()}
    result = {"timestamp": started.isoformat(timespec="seconds"), "command": command_line(),
              "data": str(DATA.relative_to(REPO_ROOT)), "n_entries": len(data["entries"]),
              "n_queries": len(golds), "distractors": args.distractors, "scores": scores,
              "missed_at_5": missed,
              "superseded_by_the_write_path": served["superseded"], "git": code,
              "settings": {"k1": K1, "max_df": MAX_DF, "rrf_k": RRF_K, "lexical_weight": W_LEX,
                           "dense_model": encoder.model}}
    path = results_dir() / f"identifiers-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    for name, s in scores.items():
        sys.stdout.write(f"{name:12s} " + " ".join(f"{k} {v:.3f}" for k, v in s.items()) + "\n")
    sys.stdout.write(f"wrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
