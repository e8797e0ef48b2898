"""LoCoMo retrieval ablation, in-process: which ranking ideas move evidence recall.

This is the lab bench behind `bench_locomo.py`'s defaults. It scores ranking
variants on the identical turn texts and questions (same loader, same
evidence normalisation, same recall definition), without the stack, so that a
dozen ideas can be compared in minutes. Only the winners are then built into
the memory service and measured through the real stack by `bench_locomo.py`.

Every variant is a ranking of one conversation's turns for one question:
  bm25 / bm25-stem      Okapi BM25 on raw tokens / on Snowball-English stems
                        minus Postgres' English stop words (what the service's
                        'english' text search configuration does)
  dense                 cosine with the model's embeddings
  rrf                   reciprocal rank fusion of the two (k=60)
  +episode              each turn also gets the summed fused score of the
                        other strong turns of its session (episode), weighted
  +neighbour            each turn also gets a share of its adjacent turns'
                        fused scores (the turn before and after, same session)
  +ctx-embed            the dense channel embeds each turn with its previous
                        turn as context
Embeddings are cached under --cache (they take minutes on 2 cores).

Usage: .venv/bin/python evals/ablate_locomo.py [--model PATH] [--cache DIR]
Writes evals/results/locomo-ablation-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from bench_locomo import (
    BM25,
    DEFAULT_AUDIT,
    DEFAULT_DATA,
    RESULTS_DIR,
    Conversation,
    load_conversations,
    score,
)
from benchlib import command_line, parse_with_smoke

TOP_K = 50
def order(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-scores, kind="stable")


def rrf_scores(n: int, *orders: np.ndarray, depth: int, k: int = 60,
               weights: tuple[float, ...] | None = None) -> np.ndarray:
    """Weighted RRF over the top `depth` of each ranking (the service's
    candidates per channel)."""
    out = np.zeros(n)
    for j, ranking in enumerate(orders):
        w = 1.0 if weights is None else weights[j]
        top = ranking[:depth]
        out[top] += w / (k + np.arange(1, len(top) + 1))
    return out


def episode_boost(fused: np.ndarray, sessions: np.ndarray, weight: float,
                  top: int = 3) -> np.ndarray:
    """Add to each candidate `weight` x the sum of the best `top` fused scores
    in its session. Only candidates (score > 0) move: the service can only
    serve rows one of its channels found."""
    out = fused.copy()
    for s in np.unique(sessions):
        members = np.flatnonzero((sessions == s) & (fused > 0))
        best = np.sort(fused[members])[::-1][:top].sum()
        out[members] += weight * best
    return out


def neighbour_boost(fused: np.ndarray, sessions: np.ndarray, weight: float) -> np.ndarray:
    prev_ = np.r_[0.0, fused[:-1]] * (np.r_[False, sessions[1:] == sessions[:-1]])
    next_ = np.r_[fused[1:], 0.0] * (np.r_[sessions[:-1] == sessions[1:], False])
    return fused + weight * (prev_ + next_) * (fused > 0)


def embed_cached(encode: Callable[[list[str]], np.ndarray], texts: list[str], cache: Path,
                 tag: str) -> np.ndarray:
    key = hashlib.sha256(("\x00".join(texts) + tag).encode()).hexdigest()[:16]
    path = cache / f"{tag}-{key}.npy"
    if path.exists():
        return np.load(path)
    vecs = encode(texts)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs)
    return vecs


def variants(c: Conversation, vecs: dict[str, np.ndarray], qvecs: np.ndarray,
             depth: int) -> dict[str, dict[str, list[list[str]]]]:
    texts = [t.text for t in c.turns]
    ids = [t.dia_id for t in c.turns]
    sessions = np.array([t.session for t in c.turns])
    n = len(texts)
    raw, stem = BM25(texts, k1=1.2), BM25(texts, stem=True, k1=1.2)
    out: dict[str, dict[str, list[list[str]]]] = {}

    def put(name: str, qid: str, scores: np.ndarray) -> None:
        out.setdefault(name, {})[qid] = [[ids[i]] for i in order(scores)[:TOP_K]]

    for q, qv in zip(c.questions, qvecs, strict=True):
        dense_s = vecs["plain"] @ qv
        dense = order(dense_s)
        put("bm25", q.qid, raw.scores(q.question))
        put("bm25-stem", q.qid, stem.scores(q.question))
        put("dense", q.qid, dense_s)
        put("dense-ctx", q.qid, vecs["ctx"] @ qv)
        put("rrf(bm25,dense)", q.qid, rrf_scores(n, order(raw.scores(q.question)), dense,
                                                 depth=depth))
        lexical = {"stem": order(stem.scores(q.question))}
        for cut in (1.0, 0.3, 0.1):
            lexical[f"sel{cut:.0%}"] = order(stem.selective_scores(q.question, cut))
            put(f"bm25-stem tf=1 terms<={cut:.0%}", q.qid,
                stem.selective_scores(q.question, cut))
        for (lex_name, lex), k, w_lex in itertools.product(lexical.items(), (10, 20, 60),
                                                           (1.0, 1.5)):
            base = rrf_scores(n, lex, dense, depth=depth, k=k, weights=(w_lex, 1.0))
            name = f"rrf({lex_name} x{w_lex},dense) k={k}"
            put(name, q.qid, base)
            for nb, ep in itertools.product((0.0, 0.1, 0.2, 0.3), (0.0, 0.2, 0.3, 0.5)):
                if nb or ep:
                    put(f"{name} +nb{nb} +ep{ep}", q.qid,
                        episode_boost(neighbour_boost(base, sessions, nb), sessions, ep))
        put("rrf(stem,dense,dense-ctx) k=20", q.qid,
            rrf_scores(n, lexical["stem"], dense, order(vecs["ctx"] @ qv), depth=depth, k=20))
    return out


def held_out_choice(rankings: dict[str, dict[str, list[list[str]]]],
                     convs: list[Conversation]) -> dict[str, object]:
    """Choose the best variant on the first half of the conversations and
    score it on the second half: how much of the tuned gain is overfit."""
    half = len(convs) // 2
    tune = [q for c in convs[:half] for q in c.questions]
    test = [q for c in convs[half:] for q in c.questions]
    if not tune or not test:
        return {}
    r10 = {name: score(r, tune)["turn"]["r@10"] for name, r in rankings.items()}
    chosen = max(r10, key=r10.__getitem__)
    on_test = {name: score(r, test)["turn"]["r@10"] for name, r in rankings.items()}
    best_on_test = max(on_test, key=on_test.__getitem__)
    return {"tuned_on": [c.sample_id for c in convs[:half]],
            "tested_on": [c.sample_id for c in convs[half:]],
            "chosen": chosen, "chosen_tune_r10": r10[chosen], "chosen_test_r10": on_test[chosen],
            "best_on_test": best_on_test, "best_test_r10": on_test[best_on_test],
            "rrf(bm25,dense)_test_r10": on_test.get("rrf(bm25,dense)"),
            "bm25-stem_test_r10": on_test.get("bm25-stem")}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--audit", type=Path, default=DEFAULT_AUDIT)
    ap.add_argument("--model", default="", help="sentence-transformers model dir (default MiniLM)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/engram-ablation-cache"))
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--show", type=int, default=40, help="print the best N variants")
    ap.add_argument("--depth", type=int, default=100, help="candidates per channel")
    args = parse_with_smoke(ap, {"conversations": 1, "depth": 20, "show": 5})

    from engram_embedder.backend import SentenceTransformerBackend

    encoder = SentenceTransformerBackend(args.model, "cpu")
    tag = Path(encoder.model).name

    def encode(texts: list[str]) -> np.ndarray:
        return encoder.encode(texts).vectors

    convs = load_conversations(args.data, args.audit if args.audit.exists() else None,
                               args.conversations)
    rankings: dict[str, dict[str, list[list[str]]]] = {}
    for c in convs:
        texts = [t.text for t in c.turns]
        ctx = [texts[i] if i == 0 or c.turns[i - 1].session != c.turns[i].session
               else f"{texts[i - 1]}\n{texts[i]}" for i in range(len(texts))]
        vecs = {"plain": embed_cached(encode, texts, args.cache, tag),
                "ctx": embed_cached(encode, ctx, args.cache, tag + "-ctx")}
        qvecs = embed_cached(encode, [q.question for q in c.questions], args.cache,
                             tag + "-q")
        for name, ranks in variants(c, vecs, qvecs, args.depth).items():
            rankings.setdefault(name, {}).update(ranks)
        sys.stderr.write(f"{c.sample_id}: {len(c.turns)} turns, {len(c.questions)} questions\n")
    questions = [q for c in convs for q in c.questions]
    results = {name: score(r, questions) for name, r in rankings.items()}
    table = {name: {"turn_r@10": r["turn"]["r@10"], "turn_r@5": r["turn"]["r@5"],
                    "turn_r@20": r["turn"]["r@20"],
                    **{f"cat{k}_r@10": v["turn"]["r@10"] for k, v in r["per_category"].items()}}
             for name, r in results.items()}
    for name, row in sorted(table.items(), key=lambda kv: -kv[1]["turn_r@10"])[:args.show]:
        sys.stdout.write(f"{row['turn_r@10']:.4f}  {name}\n")
    holdout = held_out_choice(rankings, convs)
    sys.stdout.write(f"held out: {json.dumps(holdout)}\n")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = {"timestamp": stamp, "command": command_line(), "model": encoder.model,
           "depth": args.depth,
           "n_questions": len([q for q in questions if q.gold]), "summary": table,
           "held_out": holdout, "results": results}
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"locomo-ablation-{stamp}.json"
    path.write_text(json.dumps(out, indent=1))
    sys.stdout.write(f"{path}\n")


if __name__ == "__main__":
    main()
