"""LoCoMo multi-hop ideas from structure the stack already holds, in-process.

Each family adds one channel or lift on top of the service's ranking (today's
defaults: `ablate_locomo_recall.KEPT`, the contextual vectors included), and
is scored on the tuning half, the held-out half and all ten with the same
loader, recall definition and cached embeddings as the other labs:
  ent-rules  the cortex's entity graph as the default (rules) extractor fills
             it: a turn links to the entities of the facts extracted from it;
             entities named in the query (cortex `names_in`) seed the walk
  ent-names  a far richer graph than any extractor here gives (an upper bound):
             every capitalised name inside a turn is an entity linked to it
  (both)     the seeds' turns (and with hops=1, the turns of the entities that
             share a turn with a seed, best `fan` by co-occurrence) join as a
             further RRF channel ranked by the dense score, weight w; or
             ("lift") a candidate linked to a seed gains w x its score.
             Entities on more than `max_df` of the rows (the speakers) are no
             seeds, as the lexical channel drops its common terms
  epi        the turns next to the first round's best m (same episode, up to
             `win` away) join as a further RRF channel in their parent's order
  sess       the turns of the first round's best episode join as a further
             RRF channel ranked by the dense score
  when       a question about time ("when", "how long", "what year") lifts the
             candidates whose text names a time (yesterday, last week, May,
             2022, ...) by w x their score: the service's detectors
             (engram_memory/timewords.py) and lift (engram_kit.ranking step 6), wired
             since with w = 0.5 (ENGRAM_TIME_WEIGHT)
  ident      the lexical channel also indexes identifier-shaped tokens whole
             (the memory service's tokenizer since migration 0023), alone and
             with the identifier lift (x1.0): does it cost LoCoMo anything?

Usage: python -m evals.ablate.locomo_graph [--cache DIR] [--only NAME]
Writes evals/results/locomo-ablation-graph-<UTC timestamp>.json.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from engram_dreamer.extract_rules import SENTENCE, extract_sentence
from engram_kit.ranking import Fused, lift_by_time
from engram_memory.identifiers import identifier_tokens
from engram_memory.timewords import asks_about_time, names_a_time
from evals.ablate.locomo import (
    KS,
    Row,
    embed_cached,
    lab_encoder,
    lab_parser,
    order,
    recalls,
    rrf,
    summarise,
    write_artefact,
)
from evals.ablate.locomo_recall import KEPT, Conv2, contextual_texts, score
from evals.bench.locomo import BM25, load_conversations
from evals.harness.benchlib import command_line, parse_with_smoke
from evals.harness.locomo_split import DESCRIPTION

NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)")
NOT_NAMES = {"I", "I'm", "I've", "I'd", "I'll", "The", "It", "That", "This", "Thanks", "Yes",
             "Yeah", "Wow", "Oh", "Hey", "Hi", "Sure", "So", "And", "But", "What", "How", "Me"}


@dataclass(frozen=True)
class Graph:
    ent: str = ""  # "", rules, names
    ent_mode: str = "rrf"  # rrf, lift
    ent_w: float = 0.0
    hops: int = 0
    fan: int = 3
    max_df: float = 0.1
    epi: tuple[int, int, float] = (0, 0, 0.0)  # top hits, window, channel weight
    sess: float = 0.0  # channel weight of the best episode's turns
    when: float = 0.0
    ident: bool = False
    ident_lift: float = 0.0  # the service's identifier lift (engram_kit.ranking step 5)

    def name(self) -> str:
        out = [KEPT.name()]
        if self.ent:
            out.append(f"ent-{self.ent}-{self.ent_mode}{self.ent_w} hops{self.hops}"
                       + (f" fan{self.fan}" if self.hops else "") + f" df{self.max_df}")
        if self.epi[0]:
            out.append(f"epi(top{self.epi[0]},win{self.epi[1]},x{self.epi[2]})")
        if self.sess:
            out.append(f"sess x{self.sess}")
        if self.when:
            out.append(f"when x{self.when}")
        if self.ident:
            out.append("ident" + (f" lift{self.ident_lift}" if self.ident_lift else ""))
        return " +".join(out)

    def family(self) -> str:
        return "+".join(f for f, on in (
            (f"ent-{self.ent}-{self.ent_mode}", self.ent), ("epi", self.epi[0]),
            ("sess", self.sess), ("when", self.when), ("ident", self.ident)) if on)


BASE = Graph()


def names_in(query: str) -> list[str]:
    """The cortex's seed names: words and adjacent pairs ('billing api' -> 'billing-api')."""
    words = re.findall(r"[a-z0-9][a-z0-9._/-]*", query.lower())
    return list(dict.fromkeys(words + [f"{a}-{b}" for a, b in itertools.pairwise(words)]))


def rules_entities(text: str) -> set[str]:
    body = text.split(": ", 1)[-1]
    out = set()
    for m in SENTENCE.finditer(body):
        if (c := extract_sentence("x", m.group(0))) is not None:
            out.add(c.entity)
    return out


def name_entities(text: str) -> set[str]:
    body = text.split(": ", 1)[-1]
    return {m.group(1).lower().replace(" ", "-") for m in NAME.finditer(body)
            if m.group(1) not in NOT_NAMES}


class Lab(Conv2):
    """A conversation with its entity links and an identifier-aware BM25."""

    def __init__(self, c, vecs, depth, ctx_vecs) -> None:  # noqa: ANN001
        super().__init__(c, vecs, depth, ctx_vecs)
        texts = [t.text for t in c.turns]
        self.links = {"rules": [rules_entities(t) for t in texts],
                      "names": [name_entities(t) for t in texts]}
        self.turns_of: dict[str, dict[str, list[int]]] = {}
        for kind, links in self.links.items():
            by: dict[str, list[int]] = {}
            for i, es in enumerate(links):
                for e in es:
                    by.setdefault(e, []).append(i)
            self.turns_of[kind] = by
        self.idents = [set(identifier_tokens(t)) for t in texts]
        self.timed = {i for i, t in enumerate(texts) if names_a_time(t)}
        self.plain_bm25 = self.bm25

    def use_identifiers(self, on: bool) -> None:
        """Swap the lexical index (postings and all) for one with identifier tokens."""
        if not on:
            self.bm25, self.memo = self.plain_bm25, {}
        else:
            self.bm25 = IdentBM25([t.text for t in self.c.turns], stem=True)
            self.memo = {}
        self.docs = [set(tf) for tf in self.bm25.tf]
        self.postings = {}
        for i, d in enumerate(self.docs):
            for t in d:
                self.postings.setdefault(t, []).append(i)  # type: ignore[arg-type]
        self.postings = {t: np.array(v) for t, v in self.postings.items()}


class IdentBM25(BM25):
    def terms(self, text: str) -> list[str]:
        return super().terms(text) + identifier_tokens(text)


def seeds(lab: Lab, g: Graph, question: str) -> dict[int, float]:
    """Turn -> weight: the seeds' turns at 1, their neighbours' at 0.5."""
    by = lab.turns_of[g.ent]
    cut = max(g.max_df * lab.n, 3)
    found = [e for e in names_in(question) if e in by and len(by[e]) <= cut]
    out = {i: 1.0 for e in found for i in by[e]}
    if g.hops and found:
        co: Counter = Counter()
        for e in found:
            for i in by[e]:
                co.update(x for x in lab.links[g.ent][i] if x not in found and len(by[x]) <= cut)
        for e, _ in co.most_common(g.fan):
            for i in by[e]:
                out.setdefault(i, 0.5)
    return out


def with_graph(lab: Lab, question: str, qv: np.ndarray, g: Graph) -> np.ndarray:
    base = score(lab, question, qv, qv, KEPT)
    extra: list[tuple[np.ndarray, float]] = []
    dense = lab.cached(("dense", question), lambda: lab.vecs @ qv)
    first = order(base)
    if g.ent:
        linked = seeds(lab, g, question)
        if linked and g.ent_mode == "lift":
            held = np.zeros(lab.n)
            held[list(linked)] = list(linked.values())
            base = base * (1 + g.ent_w * held)
        elif linked:
            idx = np.array(sorted(linked, key=lambda i: (-linked[i], -dense[i])))
            extra.append((idx[:lab.depth], g.ent_w))
    if g.epi[0]:
        top, win, _ = g.epi
        near = []
        for i in first[:top]:
            for off in range(1, win + 1):
                near += [j for j in (i - off, i + off)
                         if 0 <= j < lab.n and lab.sessions[j] == lab.sessions[i]]
        extra.append((np.array(list(dict.fromkeys(near)), dtype=int), g.epi[2]))
    if g.sess:
        best = lab.sessions[first[0]]
        members = np.flatnonzero(lab.sessions == best)
        extra.append((members[order(dense[members])][:lab.depth], g.sess))
    if extra:  # a further RRF channel (same k): its turns join the candidates
        base = base + rrf(lab.n, extra, 5)
    if g.ident_lift and (wanted := set(identifier_tokens(question))):
        held = np.array([len(wanted & have) / len(wanted) for have in lab.idents])
        base = base * (1 + g.ident_lift * held)
    if g.when and asks_about_time(question):
        base = time_lifted(base, lab.timed, g.when)
    return base


def time_lifted(scores: np.ndarray, timed: set[int], weight: float) -> np.ndarray:
    """The service's time lift (engram_kit.ranking step 6) over the lab's candidates."""
    fused = [Fused(int(i), float(scores[i])) for i in np.flatnonzero(scores > 0)]
    lift_by_time(fused, timed, weight)
    out = scores.copy()
    for f in fused:
        out[f.key] = f.score
    return out


def grid(smoke: bool) -> list[Graph]:
    if smoke:
        return [BASE, Graph(ent="names", ent_w=0.5), Graph(epi=(5, 1, 0.5)), Graph(ident=True)]
    out = [BASE, Graph(ident=True), Graph(ident=True, ident_lift=1.0)]
    for ent, mode in itertools.product(("rules", "names"), ("rrf", "lift")):
        ws = (0.3, 1.0) if mode == "rrf" else (0.1, 0.5)
        out += [Graph(ent=ent, ent_mode=mode, ent_w=w, hops=h)
                for w, h in itertools.product(ws, (0, 1))]
    out += [Graph(epi=(t, w, x)) for t, w, x in itertools.product((3, 5), (1, 2), (0.3, 1.0))]
    out += [Graph(sess=x) for x in (0.3, 1.0)]
    out += [Graph(when=x) for x in (0.1, 0.5)]
    return out


def main() -> None:
    ap = lab_parser(__doc__)
    ap.add_argument("--depth", type=int, default=100, help="candidates per channel")
    ap.add_argument("--only", default="", help="score only the variants whose name holds this")
    args = parse_with_smoke(ap, {"conversations": 1, "depth": 20})

    encode, model = lab_encoder(args.model)
    tag = model.rsplit("/", 1)[-1]

    variants = [g for g in grid(args.smoke) if g == BASE or args.only in g.name()]
    names = [g.name() for g in variants]
    convs = load_conversations(args.data, args.audit if args.audit.exists() else None,
                               args.conversations)
    rows: list[Row] = []
    for c in convs:
        own = embed_cached(encode, [t.text for t in c.turns], args.cache, tag)
        # Only the service's contextual vector (two lines before, encoded).
        ctx = {(2, "text"): embed_cached(encode, contextual_texts(c, 2), args.cache,
                                         f"{tag}-ctx2")}
        lab = Lab(c, own, args.depth, ctx)
        qvecs = embed_cached(encode, [q.question for q in c.questions], args.cache, tag + "-q")
        index = {t.dia_id: i for i, t in enumerate(c.turns)}
        asked = [(q, qv) for q, qv in zip(c.questions, qvecs, strict=True) if q.gold]
        per: dict[str, dict[str, list[float]]] = {q.qid: {} for q, _ in asked}
        for ident in (False, True):  # one index at a time: the memo is per index
            lab.use_identifiers(ident)
            for q, qv in asked:
                gold = [index[d] for d in q.gold]
                for n, g in zip(names, variants, strict=True):
                    if g.ident == ident:
                        per[q.qid][n] = recalls(with_graph(lab, q.question, qv, g), gold)
        rows += [Row(q.qid, c.sample_id, q.category, per[q.qid]) for q, _ in asked]
        sys.stderr.write(f"{c.sample_id}: {len(c.turns)} turns, {len(asked)} questions, "
                         f"rules entities {len(lab.turns_of['rules'])}, "
                         f"names {len(lab.turns_of['names'])}\n")
    summary = summarise(rows, names)
    report(summary, variants, args.depth, model, len(rows))


def report(summary: dict, variants: list[Graph], depth: int, model: str, n: int) -> None:
    """Per family: the best setting on the tuning half, judged held out."""
    families: dict[str, list[str]] = {}
    for g in variants[1:]:
        families.setdefault(g.family(), []).append(g.name())
    key = "tune" if "tune" in summary[BASE.name()] else "all"
    best = {fam: max(ns, key=lambda x: summary[x][key]["turn_r@10"])
            for fam, ns in families.items()}
    cols = ("turn_r@10", "cat1_r@10", "turn_r@5")
    for name in [BASE.name(), *best.values()]:
        s = summary[name]
        sys.stdout.write("  ".join(f"{g} " + "/".join(f"{s[g].get(c, 0):.3f}" for c in cols)
                                   for g in s) + f"  {name}\n")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = {"timestamp": stamp, "command": command_line(), "model": model, "depth": depth,
           "split": DESCRIPTION, "base": BASE.name(), "ks": list(KS), "n_questions": n,
           "best_on_tune": best, "by_split": summary}
    write_artefact("locomo-ablation-graph", stamp, out)


if __name__ == "__main__":
    main()
