"""LoCoMo recall ideas beyond `ablate/locomo.py`, in-process, no LLM on the search path.

Each family changes one thing on top of the service's defaults (the
`ablate_locomo.DEFAULTS` ranking) and is scored on the tuning half, the
held-out half and all ten, with the same loader, recall definition and
cached embeddings:
  ctx        contextual vectors: a second vector per entry embedding the entry
             after the one or two entries before it in its episode; the dense
             score is the max or a blend of the two similarities, or the
             second vector is a third RRF channel; or, with no encode of its
             own, the mean of the lines' own vectors
  score      score fusion: a convex combination of the per-query normalised
             (min-max or z) dense cosine and lexical BM25, instead of RRF
  stmt       the question rewritten as a statement for the dense query
             ("When did Caroline go to X?" -> "Caroline go to X"), alone,
             blended with the question's vector, or as a third channel
  nbr        neighbour lift: the entries next to the best hits (same episode)
             gain a share of their score, even when no channel found them
  quota      at most n entries of one episode in the top 10
  rare       a candidate sharing rare terms with several of the first round's
             best entries gains a share of its score

Usage: python -m evals.ablate.locomo_recall [--cache DIR]
Writes evals/results/locomo-ablation-recall-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np

from evals.ablate.locomo import (
    DEFAULTS,
    KS,
    MAX_DF,
    Conv,
    Row,
    candidates,
    embed_cached,
    lab_encoder,
    lab_parser,
    lifts,
    order,
    recalls,
    rrf,
    summarise,
    write_artefact,
)
from evals.bench.locomo import load_conversations
from evals.harness.benchlib import command_line, parse_with_smoke
from evals.harness.locomo_split import DESCRIPTION

WH = (r"what|when|where|who|whom|whose|which|why|how(?: many| much| long| often| old| far)?")
AUX = (r"did|does|do|is|are|was|were|has|have|had|can|could|would|will|might|should|may")
QUESTION = re.compile(rf"^\s*(?:{WH})\b\s*((?:\w+\s+){{0,3}}?)(?:{AUX})\b\s+(.*?)\??\s*$", re.I)
LEADING_AUX = re.compile(rf"^\s*(?:{AUX})\s+(.*?)\??\s*$", re.I)


def statement(question: str) -> str:
    """The question as a statement: wh-word and auxiliary dropped, the words
    between them moved to the end ("What books has Melanie read?" ->
    "Melanie read books")."""
    if m := QUESTION.match(question):
        head, rest = m.group(1).strip(), m.group(2).strip()
        return f"{rest} {head}".strip() if head else rest
    if m := LEADING_AUX.match(question):
        return m.group(1).strip()
    return question.strip().rstrip("?")


@dataclass(frozen=True)
class Idea:
    ctx: str = ""  # "", max, blend, blendu (the service's: over either top `depth`), rrf
    ctx_n: int = 1  # entries before it that the contextual vector includes
    ctx_w: float = 0.0  # blend share / channel weight
    ctx_src: str = "text"  # text: one encode of the lines joined; mean: their own vectors averaged
    fusion: str = "rrf"  # rrf, minmax, z
    alpha: float = 0.5  # the dense share under score fusion
    stmt: str = ""  # "", replace, blend, rrf
    stmt_w: float = 0.0
    nbr: tuple[int, float, int] = (0, 0.0, 0)  # top hits, share, window
    quota: int = 0
    rare: tuple[int, float] = (0, 0.0)  # top hits, weight

    def name(self) -> str:
        out = ["defaults"]
        if self.ctx:
            out.append(f"ctx{self.ctx_n}-{self.ctx}" + (f"{self.ctx_w}" if self.ctx_w else "")
                       + ("-mean" if self.ctx_src == "mean" else ""))
        if self.fusion != "rrf":
            out.append(f"score-{self.fusion} a={self.alpha}")
        if self.stmt:
            out.append(f"stmt-{self.stmt}" + (f"{self.stmt_w}" if self.stmt_w else ""))
        if self.nbr[0]:
            out.append(f"nbr(top{self.nbr[0]},x{self.nbr[1]},w{self.nbr[2]})")
        if self.quota:
            out.append(f"quota{self.quota}")
        if self.rare[0]:
            out.append(f"rare(top{self.rare[0]},x{self.rare[1]})")
        return " +".join(out)


BASE = Idea()
KEPT = Idea(ctx="blendu", ctx_n=2, ctx_w=0.5)  # the service's default since decision 0011


class Conv2(Conv):
    def __init__(self, c, vecs, depth, ctx_vecs: dict[tuple[int, str], np.ndarray]) -> None:  # noqa: ANN001
        super().__init__(c, vecs, depth)
        self.ctx_vecs = ctx_vecs


def minmax(x: np.ndarray) -> np.ndarray:
    span = x.max() - x.min()
    return (x - x.min()) / span if span > 0 else np.ones_like(x)


def zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else np.zeros_like(x)


def dense_scores(cv: Conv2, qv: np.ndarray, sv: np.ndarray, idea: Idea) -> np.ndarray:
    q = qv
    if idea.stmt == "replace":
        q = sv
    elif idea.stmt == "blend":
        q = (1 - idea.stmt_w) * qv + idea.stmt_w * sv
        q = q / np.linalg.norm(q)
    dense = cv.vecs @ q
    if idea.ctx in ("max", "blend", "blendu"):
        other = cv.ctx_vecs[(idea.ctx_n, idea.ctx_src)] @ q
        mixed = np.maximum(dense, other) if idea.ctx == "max" else \
            (1 - idea.ctx_w) * dense + idea.ctx_w * other
        if idea.ctx == "blendu":  # only rows in either index's nearest `depth`
            pool = np.union1d(order(dense)[:cv.depth], order(other)[:cv.depth])
            out = np.full(cv.n, -2.0)
            out[pool] = mixed[pool]
            return out
        return mixed
    return dense


def fused(cv: Conv2, question: str, qv: np.ndarray, sv: np.ndarray,
          idea: Idea) -> tuple[np.ndarray, list[str]]:
    p, d = DEFAULTS, cv.depth
    used, common = cv.kept(set(cv.bm25.terms(question)))
    lex = cv.cached(("lex", question), lambda: cv.lexical(dict.fromkeys(used, 1.0), 0.0))
    dense = dense_scores(cv, qv, sv, idea)
    lex_top, dense_top = candidates(lex, d, True), candidates(dense, d, False)
    if idea.fusion == "rrf":
        channels = [(lex_top, p.w_lex), (dense_top, 1.0)]
        if idea.ctx == "rrf":
            ctx_dense = cv.ctx_vecs[(idea.ctx_n, idea.ctx_src)] @ qv
            channels.append((candidates(ctx_dense, d, False), idea.ctx_w))
        if idea.stmt == "rrf":
            channels.append((candidates(cv.vecs @ sv, d, False), idea.stmt_w))
        base = rrf(cv.n, channels, p.k)
    else:
        cand = np.union1d(lex_top, dense_top)
        norm = minmax if idea.fusion == "minmax" else zscore
        s = idea.alpha * norm(dense[cand]) + (1 - idea.alpha) * norm(lex[cand])
        base = np.zeros(cv.n)
        base[cand] = s - s.min() + 1e-3  # positive: every candidate stays one
        base = base / base.max() * 0.3  # the scale of an RRF score at k=5 (lifts add to it)
    return lifts(cv, base, p.nb, p.ep), common


def score(cv: Conv2, question: str, qv: np.ndarray, sv: np.ndarray, idea: Idea) -> np.ndarray:
    scores, common = fused(cv, question, qv, sv, idea)
    if DEFAULTS.entities and common:
        held = np.zeros(cv.n)
        for t in common:
            held[cv.postings[t]] += 1.0 / len(common)
        scores = scores * (1 + DEFAULTS.entities * held) * (scores > 0)
    if idea.nbr[0]:
        scores = neighbour_lift(cv, scores, *idea.nbr)
    if idea.rare[0]:
        scores = rare_lift(cv, scores, *idea.rare)
    if idea.quota:
        scores = quota(cv, scores, idea.quota)
    return scores


def neighbour_lift(cv: Conv2, scores: np.ndarray, top: int, share: float,
                   window: int) -> np.ndarray:
    out = scores.copy()
    for i in order(scores)[:top]:
        for off in range(1, window + 1):
            for j in (i - off, i + off):
                if 0 <= j < cv.n and cv.sessions[j] == cv.sessions[i]:
                    out[j] += share * scores[i] / off
    return out


def rare_lift(cv: Conv2, scores: np.ndarray, top: int, weight: float) -> np.ndarray:
    """Terms (usable by the lexical channel) that at least two of the best
    `top` entries hold; a candidate gains weight x its score per such term
    share it holds."""
    best = order(scores)[:top]
    cut = max(MAX_DF * cv.n, 3)
    counts: dict[str, int] = {}
    for i in best:
        for t in cv.docs[i]:
            if len(cv.postings[t]) <= cut:
                counts[t] = counts.get(t, 0) + 1
    shared = [t for t, c in counts.items() if c >= 2]
    if not shared:
        return scores
    held = np.zeros(cv.n)
    for t in shared:
        held[cv.postings[t]] += 1.0 / len(shared)
    return scores * (1 + weight * held) * (scores > 0)


def quota(cv: Conv2, scores: np.ndarray, per: int, k: int = 10) -> np.ndarray:
    """The first k taken with at most `per` per episode, then the rest in order."""
    ranked = [i for i in order(scores) if scores[i] > 0]
    taken: dict[int, int] = {}
    head, tail = [], []
    for i in ranked:
        s = int(cv.sessions[i])
        if len(head) < k and taken.get(s, 0) < per:
            head.append(i)
            taken[s] = taken.get(s, 0) + 1
        else:
            tail.append(i)
    out = np.zeros(cv.n)
    seq = head + tail
    out[seq] = np.linspace(2.0, 1.0, len(seq)) if seq else []
    return out


def ideas(smoke: bool) -> list[Idea]:
    if smoke:
        return [BASE, Idea(ctx="max"), Idea(fusion="minmax"), Idea(stmt="blend", stmt_w=0.5)]
    out = [BASE]
    for n in (1, 2):
        out += [Idea(ctx="max", ctx_n=n)]
        out += [Idea(ctx="blend", ctx_n=n, ctx_w=w) for w in (0.2, 0.3, 0.5)]
        out += [Idea(ctx="rrf", ctx_n=n, ctx_w=w) for w in (0.3, 0.5, 1.0)]
    out += [Idea(ctx="blendu", ctx_n=2, ctx_w=w) for w in (0.3, 0.5)]
    out += [Idea(ctx="blendu", ctx_n=n, ctx_w=w, ctx_src="mean")
            for n, w in itertools.product((1, 2), (0.3, 0.5))]
    out += [Idea(fusion=f, alpha=a) for f, a in itertools.product(
        ("minmax", "z"), (0.3, 0.4, 0.5, 0.6, 0.7))]
    out += [Idea(stmt="replace")]
    out += [Idea(stmt="blend", stmt_w=w) for w in (0.3, 0.5)]
    out += [Idea(stmt="rrf", stmt_w=w) for w in (0.5, 1.0)]
    out += [Idea(nbr=(t, s, w)) for t, s, w in itertools.product((3, 5, 10), (0.1, 0.2, 0.4),
                                                                 (1, 2))]
    out += [Idea(quota=q) for q in (2, 3, 4, 5)]
    out += [Idea(rare=(t, w)) for t, w in itertools.product((5, 10), (0.25, 0.5, 1.0))]
    out += [replace(KEPT, **change) for change in (
        {"fusion": "z", "alpha": 0.4}, {"stmt": "blend", "stmt_w": 0.3},
        {"nbr": (5, 0.1, 2)}, {"nbr": (3, 0.2, 2)}, {"quota": 5}, {"quota": 4},
        {"rare": (10, 0.25)}, {"rare": (5, 1.0)}, {"rare": (5, 0.5)})]
    return out


def contextual_texts(c, n: int) -> list[str]:  # noqa: ANN001
    """Each turn after up to n turns before it in its session (oldest first)."""
    out = []
    for i, t in enumerate(c.turns):
        before = [c.turns[j].text for j in range(max(0, i - n), i)
                  if c.turns[j].session == t.session]
        out.append("\n".join([*before, t.text]))
    return out


def mean_vectors(c, vecs: np.ndarray, n: int) -> np.ndarray:  # noqa: ANN001
    """Each turn's own vector averaged with those of up to n turns before it
    in its session, renormalised: a context vector with no encode of its own."""
    out = np.empty_like(vecs)
    for i, t in enumerate(c.turns):
        rows = [j for j in range(max(0, i - n), i) if c.turns[j].session == t.session] + [i]
        m = vecs[rows].sum(axis=0)
        out[i] = m / np.linalg.norm(m)
    return out


def main() -> None:
    ap = lab_parser(__doc__)
    ap.add_argument("--depth", type=int, default=100, help="candidates per channel")
    ap.add_argument("--only", default="", help="score only the ideas whose name holds this")
    args = parse_with_smoke(ap, {"conversations": 1, "depth": 20})

    encode, model = lab_encoder(args.model)
    tag = model.rsplit("/", 1)[-1]

    grid = [i for i in ideas(args.smoke) if i == BASE or args.only in i.name()]
    names = [i.name() for i in grid]
    convs = load_conversations(args.data, args.audit if args.audit.exists() else None,
                               args.conversations)
    rows: list[Row] = []
    for c in convs:
        own = embed_cached(encode, [t.text for t in c.turns], args.cache, tag)
        ctx = {(n, "text"): embed_cached(encode, contextual_texts(c, n), args.cache,
                                         f"{tag}-ctx{n}") for n in (1, 2)}
        ctx |= {(n, "mean"): mean_vectors(c, own, n) for n in (1, 2)}
        cv = Conv2(c, own, args.depth, ctx)
        qvecs = embed_cached(encode, [q.question for q in c.questions], args.cache, tag + "-q")
        svecs = embed_cached(encode, [statement(q.question) for q in c.questions], args.cache,
                             tag + "-stmt")
        index = {t.dia_id: i for i, t in enumerate(c.turns)}
        for q, qv, sv in zip(c.questions, qvecs, svecs, strict=True):
            if not q.gold:
                continue
            gold = [index[d] for d in q.gold]
            r = {n: recalls(score(cv, q.question, qv, sv, i), gold)
                 for n, i in zip(names, grid, strict=True)}
            rows.append(Row(q.qid, c.sample_id, q.category, r))
        sys.stderr.write(f"{c.sample_id}: {len(c.turns)} turns, {len(c.questions)} questions\n")
    summary = summarise(rows, names)
    report(summary, grid, args, model, len(rows))


def report(summary: dict, grid: list[Idea], args: argparse.Namespace, model: str,
           n: int) -> None:
    """Per family: the best setting on the tuning half, judged held out."""
    names = [i.name() for i in grid]
    families: dict[str, list[str]] = {}
    for i in grid[1:]:
        set_ = [f for f, on in (("ctx", i.ctx), ("score", i.fusion != "rrf"), ("stmt", i.stmt),
                                ("nbr", i.nbr[0]), ("quota", i.quota), ("rare", i.rare[0]))
                if on]
        families.setdefault("+".join(set_), []).append(i.name())
    key = "tune" if "tune" in summary[names[0]] else "all"
    best = {fam: max(ns, key=lambda x: summary[x][key]["turn_r@10"])
            for fam, ns in families.items()}
    cols = ("turn_r@10", "cat1_r@10", "turn_r@5")
    for name in [BASE.name(), *best.values()]:
        s = summary[name]
        sys.stdout.write("  ".join(f"{g} " + "/".join(f"{s[g].get(c, 0):.3f}" for c in cols)
                                   for g in s) + f"  {name}\n")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = {"timestamp": stamp, "command": command_line(), "model": model,
           "depth": args.depth, "split": DESCRIPTION, "base": BASE.name(),
           "base_ranking": DEFAULTS.name(), "ks": list(KS), "n_questions": n,
           "best_on_tune": best, "by_split": summary}
    write_artefact("locomo-ablation-recall", stamp, out)


if __name__ == "__main__":
    main()
