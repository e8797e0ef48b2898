"""LoCoMo retrieval ablation, in-process: which ranking ideas move evidence recall.

The lab bench behind the memory service's ranking defaults. It scores ranking
variants on the identical turn texts and questions as `bench/locomo.py` (same
loader, evidence normalisation and recall definition), without the stack.
`model(...)` reproduces the service's ranking (engram_kit.ranking: selective BM25 with
tf=1, weighted RRF, context and episode lifts); every other variant changes
one thing on top of it. Variants are chosen on the tuning half of
`harness/locomo_split.py` and judged on the held-out half; each artefact reports
tune, held-out and all ten.

Families of variants:
  bm25-stem / dense     the single channels
  grid                  RRF k x lexical weight x context lift x episode lift x
                        BM25 b (today's defaults are one point of it)
  prf                   pseudo-relevance feedback on the lexical channel: the
                        rarest terms of the first round's best entries are
                        added to the query (weight beta) for a second round
  rocchio               a second dense round with the query vector moved
                        toward the first round's best entries
  entities              (a default) query terms too common for the lexical channel (a
                        speaker's name) still lift the candidates that hold them
  clauses               the question split into clauses, each a further pair
                        of channels
  mmr                   greedy diversification across episodes: each entry
                        already taken from an episode scales the next by lambda
Embeddings are cached under --cache (they take minutes on 2 cores).

Usage: .venv/bin/python -m evals.ablate.locomo [--model PATH] [--cache DIR]
Writes evals/results/locomo-ablation-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from evals.bench.locomo import (
    BM25,
    CATEGORIES,
    DEFAULT_AUDIT,
    DEFAULT_DATA,
    RESULTS_DIR,
    Conversation,
    load_conversations,
)
from evals.harness.benchlib import command_line, parse_with_smoke
from evals.harness.locomo_split import DESCRIPTION, SPLITS

KS = (5, 10, 20)
MAX_DF = 0.1  # the service's lexical_max_df


@dataclass(frozen=True)
class Params:
    """One point of the service's ranking (defaults: the memory service's)."""
    k: int = 5
    w_lex: float = 1.5
    nb: float = 0.3
    ep: float = 0.3
    b: float = 0.0
    prf: tuple[int, int, float] = (0, 0, 0.0)  # top docs, terms, beta
    rocchio: tuple[int, float] = (0, 0.0)  # top docs, alpha
    entities: float = 0.5  # the service's common_term_weight
    clauses: float = 0.0
    mmr: float = 1.0  # 1.0: off

    def name(self) -> str:
        out = f"rrf(sel10% x{self.w_lex},dense) k={self.k} +nb{self.nb} +ep{self.ep}"
        if self.b:
            out += f" b={self.b}"
        if self.prf[0]:
            out += f" +prf(top{self.prf[0]},{self.prf[1]} terms,x{self.prf[2]})"
        if self.rocchio[0]:
            out += f" +rocchio(top{self.rocchio[0]},a{self.rocchio[1]})"
        if self.entities:
            out += f" +entities{self.entities}"
        if self.clauses:
            out += f" +clauses x{self.clauses}"
        if self.mmr < 1.0:
            out += f" +mmr{self.mmr}"
        return out


DEFAULTS = Params()
PREVIOUS = Params(k=10, entities=0.0)  # the defaults before the held-out split
CLAUSE_SPLIT = re.compile(r",|;|\band\b|\bor\b|\bboth\b|\balso\b", re.I)


class Conv:
    """One conversation's turns, as the service would hold them."""

    def __init__(self, c: Conversation, vecs: np.ndarray, depth: int) -> None:
        self.c, self.vecs, self.depth = c, vecs, depth
        self.n = len(c.turns)
        self.sessions = np.array([t.session for t in c.turns])
        self.bm25 = BM25([t.text for t in c.turns], stem=True)
        self.docs = [set(tf) for tf in self.bm25.tf]  # tf=1: a term counts once
        lens = np.array([len(d) for d in self.docs], dtype=float)
        self.lens = lens / lens.mean()
        self.postings: dict[str, np.ndarray] = {}
        for i, d in enumerate(self.docs):
            for t in d:
                self.postings.setdefault(t, []).append(i)  # type: ignore[arg-type]
        self.postings = {t: np.array(v) for t, v in self.postings.items()}
        self.same_prev = np.r_[False, self.sessions[1:] == self.sessions[:-1]]
        self.same_next = np.r_[self.same_prev[1:], False]
        self.session_ix = np.unique(self.sessions, return_inverse=True)[1]
        self.memo: dict[tuple, np.ndarray] = {}

    def cached(self, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def kept(self, terms: set[str]) -> tuple[list[str], list[str]]:
        """The service's term rule: terms in at most 10% of rows (or 3) are
        used, the rarest always; the rest are too common."""
        known = sorted((len(self.postings[t]), t) for t in terms if t in self.postings)
        cut = max(MAX_DF * self.n, 3)
        used = [t for d, t in known if d <= cut] or [t for _, t in known[:1]]
        return used, [t for _, t in known if t not in used]

    def lexical(self, weighted: dict[str, float], b: float, k1: float = 1.2) -> np.ndarray:
        out = np.zeros(self.n)
        norm = k1 * (1 - b + b * self.lens)
        for t, w in weighted.items():
            idx = self.postings[t]
            out[idx] += w * self.bm25.idf[t] * (k1 + 1) / (1 + norm[idx])
        return out


def order(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-scores, kind="stable")


def candidates(scores: np.ndarray, depth: int, matches_only: bool) -> np.ndarray:
    """A channel's top `depth` (the lexical channel returns matching rows only)."""
    top = order(scores)[:depth]
    return top[scores[top] > 0] if matches_only else top


def rrf(n: int, channels: list[tuple[np.ndarray, float]], k: int) -> np.ndarray:
    out = np.zeros(n)
    for top, w in channels:
        out[top] += w / (k + np.arange(1, len(top) + 1))
    return out


def lifts(cv: Conv, base: np.ndarray, nb: float, ep: float) -> np.ndarray:
    """engram_kit.ranking's context and episode lifts, over the candidates only."""
    prev_ = np.r_[0.0, base[:-1]] * cv.same_prev
    next_ = np.r_[base[1:], 0.0] * cv.same_next
    cand = np.flatnonzero(base > 0)
    out = base.copy()
    out[cand] += nb * (prev_ + next_)[cand]
    if ep:
        sess = cv.session_ix[cand]
        by = np.lexsort((-out[cand], sess))  # by session, best first
        s_sorted = sess[by]
        starts = np.r_[0, np.flatnonzero(s_sorted[1:] != s_sorted[:-1]) + 1]
        within = np.arange(len(by)) - np.repeat(starts, np.diff(np.r_[starts, len(by)]))
        keep = by[within < 3]
        best = np.bincount(sess[keep], weights=out[cand][keep], minlength=cv.session_ix.max() + 1)
        out[cand] += ep * best[sess]
    return out


def mmr(cv: Conv, scores: np.ndarray, lam: float, top: int = 50) -> np.ndarray:
    """Greedy: each pick from an episode scales that episode's rest by lam."""
    ranked = list(order(scores)[:top])
    taken: Counter = Counter()
    out: list[int] = []
    while ranked:
        best = max(ranked, key=lambda i: scores[i] * lam ** taken[cv.sessions[i]])
        ranked.remove(best)
        taken[cv.sessions[best]] += 1
        out.append(best)
    result = np.zeros(cv.n)
    result[out] = np.linspace(2.0, 1.0, len(out))
    return result


def model(cv: Conv, question: str, qv: np.ndarray, p: Params,
          clause_vecs: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """Scores per turn under `p` (higher first; 0: not a candidate)."""
    used, common = cv.kept(set(cv.bm25.terms(question)))
    d = cv.depth
    lex = cv.cached(("lex", question, p.b), lambda: cv.lexical(dict.fromkeys(used, 1.0), p.b))
    dense = cv.cached(("dense", question), lambda: cv.vecs @ qv)
    channels = [(cv.cached(("lex-top", question, p.b), lambda: candidates(lex, d, True)), p.w_lex),
                (cv.cached(("dense-top", question), lambda: candidates(dense, d, False)), 1.0)]
    for text, cvec in clause_vecs if p.clauses else []:
        c_used, _ = cv.kept(set(cv.bm25.terms(text)))
        channels += [(candidates(cv.lexical(dict.fromkeys(c_used, 1.0), p.b), d, True),
                      p.w_lex * p.clauses), (candidates(cv.vecs @ cvec, d, False), p.clauses)]
    scores = lifts(cv, rrf(cv.n, channels, p.k), p.nb, p.ep)
    if p.prf[0] or p.rocchio[0]:
        top = order(scores)
        if p.prf[0]:
            lex = cv.lexical({**expansion(cv, top[:p.prf[0]], set(used) | set(common),
                                          p.prf[1], p.prf[2]), **dict.fromkeys(used, 1.0)}, p.b)
        if p.rocchio[0]:
            moved = qv + p.rocchio[1] * cv.vecs[top[:p.rocchio[0]]].mean(axis=0)
            dense = cv.vecs @ (moved / np.linalg.norm(moved))
        channels[:2] = [(candidates(lex, d, True), p.w_lex),
                        (candidates(dense, d, False), 1.0)]
        scores = lifts(cv, rrf(cv.n, channels, p.k), p.nb, p.ep)
    if p.entities and common:
        held = np.zeros(cv.n)
        for t in common:
            held[cv.postings[t]] += 1.0 / len(common)
        scores = scores * (1 + p.entities * held) * (scores > 0)
    if p.mmr < 1.0:
        scores = mmr(cv, scores, p.mmr)
    return scores


def expansion(cv: Conv, top: np.ndarray, query: set[str], n_terms: int,
              beta: float) -> dict[str, float]:
    """The rarest usable terms the first round's best entries share."""
    counts: Counter = Counter(t for i in top for t in cv.docs[i] if t not in query)
    cut = max(MAX_DF * cv.n, 3)
    ok = [(c * cv.bm25.idf[t], t) for t, c in counts.items() if len(cv.postings[t]) <= cut]
    return {t: beta for _, t in sorted(ok, reverse=True)[:n_terms]}


def clauses(question: str) -> list[str]:
    parts = [p.strip(" ?") for p in CLAUSE_SPLIT.split(question)]
    parts = [p for p in parts if len(p.split()) >= 2]
    return parts if len(parts) > 1 else []


# --------------------------------------------------------------------------- grid


def variant_grid(smoke: bool) -> list[Params]:
    if smoke:
        return [DEFAULTS, PREVIOUS, replace(DEFAULTS, mmr=0.7)]
    grid = [Params(k, w, nb, ep, b, entities=0.0) for k, w, nb, ep, b in itertools.product(
        (5, 10, 20, 60), (1.0, 1.5, 2.0), (0.0, 0.3, 0.5), (0.0, 0.3, 0.5), (0.0, 0.75))]
    ideas = [DEFAULTS] + [replace(PREVIOUS, prf=(m, t, beta)) for m, t, beta in itertools.product(
        (3, 5, 10), (3, 5, 10), (0.3, 0.5, 1.0))]
    ideas += [replace(PREVIOUS, rocchio=(m, a)) for m, a in itertools.product(
        (3, 5, 10), (0.3, 0.5, 1.0))]
    ideas += [replace(PREVIOUS, entities=e) for e in (0.1, 0.25, 0.5, 1.0, 2.0)]
    ideas += [replace(PREVIOUS, clauses=w) for w in (0.3, 0.5, 1.0)]
    ideas += [replace(PREVIOUS, mmr=lam) for lam in (0.95, 0.9, 0.8, 0.7, 0.5)]
    ideas += [replace(PREVIOUS, k=k, w_lex=w, entities=e, mmr=lam)
              for k, w, e, lam in itertools.product((5, 10), (1.0, 1.5), (0.5, 1.0), (1.0, 0.9))]
    return grid + ideas


def single_channels(cv: Conv, question: str, qv: np.ndarray) -> dict[str, np.ndarray]:
    used, _ = cv.kept(set(cv.bm25.terms(question)))
    dense = cv.vecs @ qv
    return {"bm25-stem": cv.bm25.scores(question), "dense": dense - dense.min() + 1.0,
            "bm25 sel10% tf=1 b=0": cv.lexical(dict.fromkeys(used, 1.0), 0.0)}


def recalls(scores: np.ndarray, gold_idx: list[int]) -> list[float]:
    idx = np.arange(len(scores))
    # Stable order: ties go to the earlier turn. A turn that is no candidate
    # (score 0) is never served.
    ranks = [int((scores > scores[g]).sum() + ((scores == scores[g]) & (idx < g)).sum())
             if scores[g] > 0 else 10**9 for g in gold_idx]
    return [sum(r < k for r in ranks) / len(ranks) for k in KS]


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


# --------------------------------------------------------------------------- scoring


@dataclass
class Row:
    qid: str
    sample_id: str
    category: int
    r: dict[str, list[float]]  # variant -> recall at KS


def summarise(rows: list[Row], names: list[str]) -> dict[str, dict[str, dict[str, float]]]:
    """variant -> group ('all', 'tune', 'held_out') -> turn r@k and per-category r@10."""
    groups = {"all": rows, **{g: [r for r in rows if r.sample_id in ids]
                              for g, ids in SPLITS.items()}}
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name in names:
        out[name] = {}
        for g, rs in groups.items():
            if not rs:
                continue
            m = np.array([r.r[name] for r in rs])
            block = {f"turn_r@{k}": round(float(m[:, j].mean()), 4) for j, k in enumerate(KS)}
            for cat in CATEGORIES:
                cm = np.array([r.r[name][1] for r in rs if r.category == cat])
                if len(cm):
                    block[f"cat{cat}_r@10"] = round(float(cm.mean()), 4)
            out[name][g] = block
    return out


def choose(summary: dict[str, dict[str, dict[str, float]]], names: list[str]) -> dict[str, object]:
    """Best on the tuning half, judged on the held-out half against today's defaults."""
    if not names or "held_out" not in summary[names[0]]:
        return {}
    best = max(names, key=lambda n: summary[n]["tune"]["turn_r@10"])
    d = PREVIOUS.name()
    return {"chosen_on_tune": best, "tune_r10": summary[best]["tune"]["turn_r@10"],
            "held_out_r10": summary[best]["held_out"]["turn_r@10"],
            "previous_defaults": d,
            "previous_tune_r10": summary[d]["tune"]["turn_r@10"],
            "previous_held_out_r10": summary[d]["held_out"]["turn_r@10"],
            "wins_on_held_out": summary[best]["held_out"]["turn_r@10"]
            > summary[d]["held_out"]["turn_r@10"]}


def lab_parser(doc: str | None) -> argparse.ArgumentParser:
    """The arguments every LoCoMo lab script takes."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--audit", type=Path, default=DEFAULT_AUDIT)
    ap.add_argument("--model", default="", help="sentence-transformers model dir (default MiniLM)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/engram-ablation-cache"))
    ap.add_argument("--conversations", type=int, default=10)
    return ap


def lab_encoder(model: str) -> tuple[Callable[[list[str]], np.ndarray], str]:
    """The service's own encoder backend on the CPU (`--model`, default the
    packaged MiniLM): an encode for lists of texts, and the model's name."""
    from engram_embedder.backend import SentenceTransformerBackend

    encoder = SentenceTransformerBackend(model, "cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return encoder.encode(texts).vectors if texts else np.zeros((0, encoder.dimension))

    return encode, encoder.model


def main() -> None:
    ap = lab_parser(__doc__)
    ap.add_argument("--show", type=int, default=25, help="print the best N variants")
    ap.add_argument("--depth", type=int, default=100, help="candidates per channel")
    args = parse_with_smoke(ap, {"conversations": 1, "depth": 20, "show": 5})

    encode, model_name = lab_encoder(args.model)
    tag = Path(model_name).name

    grid = variant_grid(args.smoke)
    names = [p.name() for p in grid]
    convs = load_conversations(args.data, args.audit if args.audit.exists() else None,
                               args.conversations)
    rows: list[Row] = []
    for c in convs:
        cv = Conv(c, embed_cached(encode, [t.text for t in c.turns], args.cache, tag),
                  args.depth)
        qvecs = embed_cached(encode, [q.question for q in c.questions], args.cache, tag + "-q")
        parts = [clauses(q.question) for q in c.questions]
        flat = [p for ps in parts for p in ps]
        cvecs = iter(embed_cached(encode, flat, args.cache, tag + "-clauses"))
        index = {t.dia_id: i for i, t in enumerate(c.turns)}
        for q, qv, ps in zip(c.questions, qvecs, parts, strict=True):
            clause_vecs = [(p, next(cvecs)) for p in ps]
            if not q.gold:
                continue
            gold = [index[d] for d in q.gold]
            r = {n: recalls(s, gold) for n, s in single_channels(cv, q.question, qv).items()}
            r |= {n: recalls(model(cv, q.question, qv, p, clause_vecs), gold)
                  for n, p in zip(names, grid, strict=True)}
            rows.append(Row(q.qid, c.sample_id, q.category, r))
        sys.stderr.write(f"{c.sample_id}: {len(c.turns)} turns, {len(c.questions)} questions\n")
    all_names = list(rows[0].r)
    summary = summarise(rows, all_names)
    grid_names = [p.name() for p in grid if p.prf[0] == 0 and p.rocchio[0] == 0
                  and not p.entities and not p.clauses and p.mmr == 1.0]
    held = {"split": DESCRIPTION, "grid": choose(summary, grid_names),
            "all_variants": choose(summary, names)}
    key = "tune" if "tune" in summary[names[0]] else "all"
    for name in sorted(all_names, key=lambda n: -summary[n][key]["turn_r@10"])[:args.show]:
        s = summary[name]
        sys.stdout.write("  ".join(f"{g} {s[g]['turn_r@10']:.4f}/{s[g].get('cat1_r@10', 0):.3f}"
                                   for g in s) + f"  {name}\n")
    sys.stdout.write(f"defaults: {summary[DEFAULTS.name()]}\nheld out: {json.dumps(held)}\n")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = {"timestamp": stamp, "command": command_line(), "model": model_name,
           "depth": args.depth, "split": DESCRIPTION, "defaults": DEFAULTS.name(),
           "n_questions": len(rows), "summary": {n: s["all"] for n, s in summary.items()},
           "by_split": summary, "held_out": held}
    write_artefact("locomo-ablation", stamp, out)


def write_artefact(kind: str, stamp: str, out: dict[str, object]) -> None:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{kind}-{stamp}.json"
    path.write_text(json.dumps(out, indent=1))
    sys.stdout.write(f"{path}\n")


if __name__ == "__main__":
    main()
