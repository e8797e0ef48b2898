"""Hybrid ranking: the one place where channel rankings are combined, for
memory's entries and document chunks and for the cortex's facts, world facts
and lessons (docs/decisions/0039-one-hybrid-ranking.md).

Step 1 is all the cortex uses; memory adds the five lifts. Each step was
measured (`evals/ablate/locomo.py` and its sibling labs on LoCoMo,
`evals/bench/identifiers.py`; their artefacts list what each adds):
1. weighted reciprocal rank fusion of the dense and lexical rankings;
2. conversation context: a candidate gains a share of the fused score of the
   entries written just before and after it in the same episode (a reply
   often only makes sense with the line it answers);
3. episode focus: a candidate gains a share of the summed best scores of its
   episode's candidates (evidence clusters in the session it was said in);
4. common terms: query terms too common for the lexical channel (a person's
   name said in most lines) still tell which candidates are about the right
   thing: a candidate gains a share of its score for the fraction of them it
   holds.
5. identifiers: a candidate holding the query's identifiers whole (hosts,
   paths, versions, symbols, ids: memory's identifiers.py) gains a share of
   its score for the fraction of them it holds; an exact identifier is the
   strongest evidence a query can give, and rank fusion alone lets a near
   miss that the dense channel likes outrank it.
6. time: when the question asks about time ("when", "how long", "what
   year": memory's timewords.py), a candidate whose text names one
   (yesterday, last week, May, 2022) gains a share of its score; measured by
   `evals/ablate/locomo_graph.py` (the `when` rows of docs/memory.md).
Only candidates found by a channel are ever ranked: the lifts reorder, they
never pull in rows no channel matched. Ties keep the order of the best rank
any channel gave, then the order the channels were passed in.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)  # what the channels rank: row ids


class Channel(StrEnum):
    """A ranking the fusion combines."""
    DENSE = "dense"  # nearest by embedding
    LEXICAL = "lexical"  # matched by the query's words


@dataclass
class Fused(Generic[K]):
    key: K
    score: float = 0.0
    ranks: dict[Channel, int] = field(default_factory=dict)
    rrf: float = 0.0  # step 1 alone
    context_lift: float = 0.0
    episode_lift: float = 0.0
    term_lift: float = 0.0
    identifier_lift: float = 0.0
    time_lift: float = 0.0


@dataclass(frozen=True)
class FusionWeights:
    rrf_k: int = 60
    channels: dict[Channel, float] = field(default_factory=dict)  # absent: 1.0
    context: float = 0.0
    episode: float = 0.0
    episode_top: int = 3
    common_terms: float = 0.0
    identifiers: float = 0.0
    time: float = 0.0


def reciprocal_rank_fusion(channels: dict[Channel, list[K]], k: int = 60,
                           weights: dict[Channel, float] | None = None) -> list[Fused[K]]:
    """score(d) = sum over channels of w_c / (k + rank_c(d)), rank starting at 1."""
    fused: dict[K, Fused[K]] = {}
    for name, ranking in channels.items():
        w = (weights or {}).get(name, 1.0)
        for rank, key in enumerate(ranking, start=1):
            item = fused.setdefault(key, Fused(key))
            item.score += w / (k + rank)
            item.ranks[name] = rank
    for item in fused.values():
        item.rrf = item.score
    return _sorted(fused.values())


def lift_by_context(fused: list[Fused[K]], previous: dict[K, K],
                    weight: float) -> None:
    """Add weight x (fused score of the entry before + of the entry after)."""
    if weight <= 0:
        return
    base = {f.key: f.rrf for f in fused}
    lift = dict.fromkeys(base, 0.0)
    for key in base:
        before = previous.get(key)
        if before in base:
            lift[key] += weight * base[before]  # the line it follows
            lift[before] += weight * base[key]  # the line that answers it
    for f in fused:
        f.context_lift = lift[f.key]
        f.score = f.rrf + f.context_lift


def lift_by_episode(fused: list[Fused[K]], episode_of: dict[K, str], weight: float,
                    top: int = 3) -> None:
    """Add weight x the sum of the `top` best scores among the episode's candidates."""
    if weight <= 0:
        return
    members: dict[str, list[float]] = {}
    for f in fused:
        if (ep := episode_of.get(f.key)) is not None:
            members.setdefault(ep, []).append(f.score)
    best = {ep: sum(sorted(scores, reverse=True)[:top]) for ep, scores in members.items()}
    for f in fused:
        if (ep := episode_of.get(f.key)) is not None:
            f.episode_lift = weight * best[ep]
    for f in fused:
        f.score += f.episode_lift


def lift_by_common_terms(fused: list[Fused[K]], held: dict[K, float], weight: float) -> None:
    """Add weight x the fraction of the query's common terms it holds x its score."""
    if weight <= 0:
        return
    for f in fused:
        f.term_lift = weight * held.get(f.key, 0.0) * f.score
        f.score += f.term_lift


def lift_by_identifiers(fused: list[Fused[K]], exact: dict[K, float], weight: float) -> None:
    """Add weight x the fraction of the query's identifiers it holds x its score."""
    if weight <= 0:
        return
    for f in fused:
        f.identifier_lift = weight * exact.get(f.key, 0.0) * f.score
        f.score += f.identifier_lift


def lift_by_time(fused: list[Fused[K]], timed: Collection[K], weight: float) -> None:
    """Add weight x its score to a candidate that names a time (the caller
    passes none unless the question asks about time)."""
    if weight <= 0:
        return
    for f in fused:
        f.time_lift = weight * f.score if f.key in timed else 0.0
        f.score += f.time_lift


def fuse(channels: dict[Channel, list[K]], weights: FusionWeights,
         previous: dict[K, K], episode_of: dict[K, str],
         held: dict[K, float] | None = None,
         exact: dict[K, float] | None = None,
         timed: Collection[K] = ()) -> list[Fused[K]]:
    """`held`: per candidate, the fraction of the query's too-common terms it
    holds; `exact`: the fraction of the query's identifiers it holds whole;
    `timed`: the candidates that name a time, for a question about time."""
    fused = reciprocal_rank_fusion(channels, weights.rrf_k, weights.channels)
    lift_by_context(fused, previous, weights.context)
    lift_by_episode(fused, episode_of, weights.episode, weights.episode_top)
    lift_by_common_terms(fused, held or {}, weights.common_terms)
    lift_by_identifiers(fused, exact or {}, weights.identifiers)
    lift_by_time(fused, timed, weights.time)
    return _sorted(fused)


def _sorted(items: Iterable[Fused[K]]) -> list[Fused[K]]:
    return sorted(items, key=lambda f: (-f.score, min(f.ranks.values())))
