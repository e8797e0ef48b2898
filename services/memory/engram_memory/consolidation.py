"""Consolidation: find live entries that say (nearly) the same thing, and
let one new entry supersede several of them at once, with full history."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument

from . import repo_hygiene
from .rows import EntryRow
from .service import MemoryService, StoreInput, StoreResult
from .settings import MemorySettings
from .validation import clean_text

_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")
# Words too common to say why two entries were grouped.
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "we", "were",
    "will", "with", "not", "no"})


def terms(text: str) -> set[str]:
    words = (w.rstrip(".-_") for w in _WORD.findall(text.lower()))
    return {w for w in words if w not in _STOP and len(w) > 1}


@dataclass
class Cluster:
    members: list[EntryRow]
    similarity: list[float]          # of each member to the first
    min_similarity: float            # the weakest link that joined it
    shared_terms: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        words = ", ".join(self.shared_terms[:8]) or "no shared words (a paraphrase)"
        return (f"{len(self.members)} live entries linked by cosine similarity >= "
                f"{self.min_similarity:.2f}; shared terms: {words}")


@dataclass
class Candidates:
    clusters: list[Cluster]
    scanned: int
    truncated: bool
    min_similarity: float


def as_array(vector: Any) -> np.ndarray:
    """pgvector's codec yields a Vector (or an ndarray, by version)."""
    to_numpy = getattr(vector, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else vector, dtype=np.float32)


def cluster(vectors: np.ndarray, threshold: float) -> list[tuple[list[int], float]]:
    """Single-link clusters (index lists, weakest joining link) of rows whose
    cosine similarity reaches `threshold`; singletons are dropped."""
    n = len(vectors)
    if n < 2:
        return []
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = unit @ unit.T
    parent = list(range(n))
    weakest: dict[int, float] = {}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    rows, cols = np.nonzero(np.triu(sims >= threshold, k=1))
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        a, b = root(i), root(j)
        if a == b:
            continue
        parent[b] = a
        weakest[a] = min(weakest.get(a, 1.0), weakest.get(b, 1.0), float(sims[i, j]))
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [(g, weakest[r]) for r, g in groups.items() if len(g) > 1]


class Consolidation:
    def __init__(self, memory: MemoryService) -> None:
        self.memory = memory
        self.pool = memory.pool
        self.s: MemorySettings = memory.s

    async def candidates(self, ctx: CallerContext, min_similarity: float,
                         limit: int) -> Candidates:
        threshold = min_similarity or self.s.consolidation_min_similarity
        if not 0.5 <= threshold <= 1.0:
            raise InvalidArgument("min_similarity must be between 0.5 and 1.0 "
                                  f"(got {threshold:g})", field="min_similarity")
        cap = self.s.consolidation_max_clusters
        if limit < 0 or limit > cap:
            raise InvalidArgument(f"limit must be 1-{cap} (got {limit})", field="limit")
        scan = self.s.consolidation_max_scan
        async with tenant_tx(self.pool, ctx.require_namespace()) as conn:
            rows = await repo_hygiene.newest_embedded_live(conn, scan + 1)
        truncated, rows = len(rows) > scan, rows[:scan]
        found: list[Cluster] = []
        if rows:
            vectors = np.stack([as_array(vector) for _, vector in rows])
            for idx, weakest in cluster(vectors, threshold):
                found.append(self._describe([rows[i][0] for i in idx], vectors[idx], weakest))
        found.sort(key=lambda c: (-len(c.members), -c.min_similarity))
        return Candidates(found[:limit or cap], len(rows), truncated, threshold)

    @staticmethod
    def _describe(members: list[EntryRow], vectors: np.ndarray,
                  weakest: float) -> Cluster:
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        shared = set.intersection(*(terms(m.text) for m in members))
        return Cluster(members, [float(x) for x in unit @ unit[0]], weakest,
                       sorted(shared))

    async def consolidate(self, ctx: CallerContext, entry_ids: list[str], new_text: str,
                          reason: str) -> StoreResult:
        """One new entry supersedes every named live entry, in one
        transaction (MemoryService.store), or nothing changes."""
        ids = self._ids(entry_ids)
        reason = clean_text(reason, 500, "reason")
        return await self.memory.store(ctx, StoreInput(
            text=new_text, consolidates=ids, reason=reason))

    def _ids(self, raw: list[str]) -> list[uuid.UUID]:
        cap = self.s.consolidate_max_entries
        if not 2 <= len(raw) <= cap:
            raise InvalidArgument(f"entry_ids must name 2-{cap} entries (got {len(raw)})",
                                  field="entry_ids")
        ids: list[uuid.UUID] = []
        for value in raw:
            try:
                ids.append(uuid.UUID(value))
            except ValueError:
                raise InvalidArgument(f"entry_ids: {value[:40]!r} is not an entry id "
                                      "(a UUID)", field="entry_ids") from None
        if len(set(ids)) != len(ids):
            raise InvalidArgument("entry_ids names an entry twice", field="entry_ids")
        return ids
