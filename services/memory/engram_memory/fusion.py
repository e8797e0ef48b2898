"""Rank fusion: the one place where channel rankings are combined."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field


@dataclass
class Fused:
    key: Hashable
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)


def reciprocal_rank_fusion(channels: dict[str, list[Hashable]], k: int = 60) -> list[Fused]:
    """score(d) = sum over channels of 1 / (k + rank_c(d)), rank starting at 1."""
    fused: dict[Hashable, Fused] = {}
    for name, ranking in channels.items():
        for rank, key in enumerate(ranking, start=1):
            item = fused.setdefault(key, Fused(key))
            item.score += 1.0 / (k + rank)
            item.ranks[name] = rank
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values())))
