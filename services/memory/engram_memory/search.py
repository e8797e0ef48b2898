"""Hybrid search over the live entries: dense + BM25, fused (engram_kit.ranking)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

import asyncpg

from engram.v1.common_pb2 import QueryVector
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.ranking import Channel, Fused, FusionWeights, fuse

from . import repo, repo_candidates
from .decay import UseMarks
from .documents import ChunkHit, Documents
from .identifiers import identifier_tokens
from .rows import ServedEntryRow
from .settings import MemorySettings
from .timewords import asks_about_time
from .validation import check_window, clean_source, clean_tags, clean_text, clean_top_k

MAX_DROPPED = 10  # explain: how many unserved matches to name


@dataclass
class SearchInput:
    query: str
    top_k: int = 0
    tags: list[str] = field(default_factory=list)
    source: str = ""
    since: datetime | None = None
    until: datetime | None = None
    episode: str = ""
    as_of: datetime | None = None
    include_history: bool = False
    explain: bool = False
    query_vector: QueryVector | None = None  # encoded by the caller (one encode a search)


@dataclass
class SearchHit:
    entry: ServedEntryRow
    label: str
    fused: Fused
    dense_distance: float
    lexical_score: float
    contested_with: list[uuid.UUID] = field(default_factory=list)


@dataclass
class QueryTerm:
    lexeme: str
    rows: int
    used: bool


@dataclass
class Dropped:
    id: uuid.UUID
    text: str
    reason: str
    score: float = 0.0


@dataclass
class SearchTrace:
    terms: list[QueryTerm]
    dense_candidates: int
    lexical_candidates: int
    fusion: str
    dropped: list[Dropped]


@dataclass
class SearchResult:
    hits: list[SearchHit]
    mode: str
    note: str = ""
    documents: list[ChunkHit] = field(default_factory=list)
    layer: str = "entries"
    trace: SearchTrace | None = None
    low_confidence: bool = False


def serving_label(row: ServedEntryRow, as_of: datetime | None) -> str:
    """The one place that says how a served row is to be read."""
    if as_of is not None:
        return f"current as of {as_of.date().isoformat()}"
    if row.status == "live":
        return "current"
    if row.status == "superseded":
        return f"superseded by {row.superseded_by}" if row.superseded_by else "superseded"
    if row.status == "archived":
        return "archived (unused; memory_rescue brings it back)"
    return row.status


def fusion_weights(s: MemorySettings) -> FusionWeights:
    return FusionWeights(rrf_k=s.rrf_k, channels={Channel.LEXICAL: s.lexical_weight},
                         context=s.context_weight, episode=s.episode_weight,
                         common_terms=s.common_term_weight, identifiers=s.identifier_weight,
                         time=s.time_weight)


class Searcher:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: MemorySettings, documents: Documents | None = None,
                 uses: UseMarks | None = None) -> None:
        self.pool = pool
        self.uses = uses  # served hits count as used (decay)
        self.embedder = embedder
        self.s = settings
        self.weights = fusion_weights(settings)
        self.terms = repo.TermLimits(settings.lexical_max_df, settings.lexical_match_budget,
                                     settings.lexical_k1, settings.lexical_b)
        self.documents = documents  # None: no fall-through to documents

    async def search(self, ctx: CallerContext, data: SearchInput) -> SearchResult:
        namespace = ctx.require_namespace()
        query = clean_text(data.query, self.s.max_query_chars, "query")
        top_k = clean_top_k(data.top_k, self.s)
        check_window(data.since, data.until)
        filters = repo.Filters(clean_tags(data.tags, self.s), clean_source(data.source, self.s),
                               data.since, data.until, data.episode, data.as_of,
                               data.include_history)
        depth = max(top_k * 4, self.s.search_depth)
        vector = await self.embedder.embed_query(query, ctx, data.query_vector)
        async with tenant_tx(self.pool, namespace) as conn:
            dense = [] if vector is None else await repo.dense_ranked(
                conn, vector, filters, depth, self.s.context_vector_weight)
            lexical = await repo.lexical_ranked(conn, query, filters, depth, self.terms)
            channels = {Channel.DENSE: [i for i, _ in dense],
                        Channel.LEXICAL: [i for i, _ in lexical]}
            pool_ids = list({*channels[Channel.DENSE], *channels[Channel.LEXICAL]})
            facts = await repo_candidates.candidate_facts(conn, pool_ids, query, self.terms,
                                                          self._lift_reads(query))
            ranked = fuse(channels, self.weights, facts.previous, facts.episode, facts.held,
                          facts.exact, facts.timed)
            served = ranked[:top_k]
            rows = await repo.fetch_by_ids(conn, [f.key for f in served])
            contested = await repo.contested_pairs(conn, list(rows))
            trace = await self._trace(conn, query, data, ranked[top_k:], len(dense),
                                      len(lexical)) if data.explain else None
        hits = self._hits(served, rows, contested, dense, lexical, data.as_of)
        if self.uses is not None and not ctx.read_only:  # a read grant writes nothing
            self.uses.mark(namespace, [h.entry.id for h in hits if h.entry.status == "live"])
        result = SearchResult(hits, "hybrid" if vector is not None else "lexical", trace=trace,
                              low_confidence=self._low_confidence(hits, vector is not None))
        if vector is None:
            result.note = "embedder unavailable: lexical (full-text) results only"
        if len(hits) < max(1, top_k // 2) and self.documents is not None:
            # Thin memory layer: fall through to the verbatim documents.
            result.documents = await self.documents.search(ctx, query, top_k, vector)
            if result.documents:
                result.layer = "entries+documents" if hits else "documents"
        return result

    def _lift_reads(self, query: str) -> repo_candidates.LiftReads:
        """What the lifts of fusion steps 4-6 read of the candidates; a lift
        that is off reads nothing."""
        w = self.weights
        return repo_candidates.LiftReads(
            common_terms=w.common_terms > 0,
            identifiers=identifier_tokens(query) if w.identifiers > 0 else [],
            time=w.time > 0 and asks_about_time(query))

    def _low_confidence(self, hits: list[SearchHit], dense: bool) -> bool:
        """Nothing served is close to the query. Without the dense channel
        there is no distance to judge by: not claimed either way."""
        if not dense:
            return False
        floor = 1.0 - self.s.search_confident_cosine  # cosine distance
        return not any(h.fused.ranks.get(Channel.DENSE) and h.dense_distance <= floor for h in hits)

    @staticmethod
    def _hits(served: list[Fused[uuid.UUID]], rows: dict[uuid.UUID, ServedEntryRow],
              contested: list[tuple[uuid.UUID, uuid.UUID]],
              dense: list[tuple[uuid.UUID, float]], lexical: list[tuple[uuid.UUID, float]],
              as_of: datetime | None) -> list[SearchHit]:
        rivals: dict[uuid.UUID, list[uuid.UUID]] = {}
        for src, dst in contested:
            rivals.setdefault(src, []).append(dst)
            rivals.setdefault(dst, []).append(src)
        distances = {i: float(d) for i, d in dense}
        lex_scores = {i: float(s) for i, s in lexical}
        hits = []
        for f in served:
            row = rows.get(f.key)
            if row is None:
                continue
            label = "contested" if f.key in rivals and as_of is None else \
                serving_label(row, as_of)
            hits.append(SearchHit(row, label, f, distances.get(f.key, 0.0),
                                  lex_scores.get(f.key, 0.0),
                                  rivals.get(f.key, [])))
        return hits

    async def _trace(self, conn: asyncpg.Connection, query: str, data: SearchInput,
                     cut: list[Fused], n_dense: int, n_lexical: int) -> SearchTrace:
        """The ranking trace: the query's terms, and why matches were not served."""
        terms = [QueryTerm(*t) for t in await repo.lexical_terms(conn, query, self.terms)]
        below = cut[:MAX_DROPPED]
        texts = await repo.fetch_by_ids(conn, [f.key for f in below])
        dropped = [Dropped(f.key, texts[f.key].text,
                           "ranked below top_k", f.score)
                   for f in below if f.key in texts]
        if data.as_of is None and not data.include_history:
            for row in await repo.retired_matches(conn, query, self.terms,
                                                       MAX_DROPPED):
                by = f" by {row.superseded_by}" if row.superseded_by else (
                    " (unused; memory_rescue brings it back)"
                    if row.status == "archived" else "")
                dropped.append(Dropped(row.id, row.text,
                                       f"{row.status}{by}: not current "
                                       "(include_history serves it, labelled)"))
        w = self.weights
        fusion = (f"dense: own vector blended {self.s.context_vector_weight} with the context "
                  f"vector; rrf k={w.rrf_k}, lexical x{self.s.lexical_weight}; context lift "
                  f"{w.context}; episode lift {w.episode} (top {w.episode_top}); "
                  f"common-term lift {w.common_terms}; identifier lift {w.identifiers}; "
                  f"time lift {w.time} ({'' if asks_about_time(query) else 'not '}"
                  "a question about time); "
                  f"terms in more than {self.s.lexical_max_df:.0%} of rows, or past "
                  f"{self.s.lexical_match_budget} matching rows (rarest first), unused; "
                  f"bm25 k1={self.s.lexical_k1} b={self.s.lexical_b}")
        return SearchTrace(terms, n_dense, n_lexical, fusion, dropped)
