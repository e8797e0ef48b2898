"""Memory domain logic: the write path and hybrid search. No proto, no SQL."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx

from . import repo
from .embedding import EmbedderClient
from .events import entry_stored_event
from .fusion import reciprocal_rank_fusion
from .settings import MemorySettings
from .validation import (
    check_window,
    clean_origin,
    clean_source,
    clean_tags,
    clean_text,
    clean_top_k,
)

_SPACE = re.compile(r"\s+")


def normalised_hash(text: str) -> str:
    return hashlib.sha256(_SPACE.sub(" ", text.strip().lower()).encode()).hexdigest()


@dataclass
class StoreInput:
    text: str
    source: str = ""
    tags: list[str] = field(default_factory=list)
    origin: str = ""
    episode: str = ""
    valid_from: datetime | None = None


@dataclass
class StoreResult:
    id: uuid.UUID
    finding: str
    entry: asyncpg.Record
    related: list[uuid.UUID] = field(default_factory=list)
    superseded: list[uuid.UUID] = field(default_factory=list)
    embedded: bool = False


@dataclass
class SearchInput:
    query: str
    top_k: int = 0
    tags: list[str] = field(default_factory=list)
    source: str = ""
    since: datetime | None = None
    until: datetime | None = None


@dataclass
class SearchHit:
    entry: asyncpg.Record
    score: float
    dense_rank: int
    lexical_rank: int
    dense_distance: float
    lexical_score: float


@dataclass
class SearchResult:
    hits: list[SearchHit]
    mode: str
    note: str = ""


class MemoryService:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient, settings: MemorySettings,
                 on_outbox_write: callable) -> None:
        self.pool = pool
        self.embedder = embedder
        self.s = settings
        self._on_outbox_write = on_outbox_write

    async def store(self, ctx: CallerContext, data: StoreInput) -> StoreResult:
        namespace = ctx.require_namespace()
        text = clean_text(data.text, self.s.max_text_chars, "text")
        tags = clean_tags(data.tags, self.s)
        source = clean_source(data.source, self.s)
        origin = clean_origin(data.origin)
        vector = await self.embedder.embed_one(text, ctx, query=False)
        text_hash = normalised_hash(text)
        async with tenant_tx(self.pool, namespace) as conn:
            same = await repo.find_live_by_hash(conn, text_hash)
            if same is not None:
                await repo.confirm(conn, same["id"])
                return StoreResult(same["id"], "restatement", same, embedded=same["embedded"])
            related = []
            if vector is not None:
                near = await repo.nearest_live(conn, vector, 3)
                related = [r["id"] for r in near if r["distance"] <= self.s.paraphrase_distance]
            entry = repo.NewEntry(
                id=uuid.uuid4(), namespace=namespace, text=text, text_hash=text_hash,
                source=source, tags=tags, origin=origin, episode=data.episode or None,
                writer_principal=ctx.principal, client_id=ctx.client_id,
                session_id=ctx.session_id, valid_from=data.valid_from or datetime.now(UTC),
                embedding=vector,
            )
            row = await repo.insert_entry(conn, entry)
            finding = "paraphrase" if related else "new"
            event_id, subject, payload = entry_stored_event(
                ctx, entry.id, finding, embedded=vector is not None
            )
            await repo.insert_outbox(conn, event_id, namespace, subject, payload)
            if vector is None:
                await repo.enqueue_embedding(conn, namespace, entry.id)
        self._on_outbox_write()
        return StoreResult(entry.id, finding, row, related=related, embedded=vector is not None)

    async def search(self, ctx: CallerContext, data: SearchInput) -> SearchResult:
        namespace = ctx.require_namespace()
        query = clean_text(data.query, self.s.max_query_chars, "query")
        top_k = clean_top_k(data.top_k, self.s)
        check_window(data.since, data.until)
        filters = repo.Filters(clean_tags(data.tags, self.s), clean_source(data.source, self.s),
                               data.since, data.until)
        depth = max(top_k * 4, 20)
        vector = await self.embedder.embed_one(query, ctx, query=True)
        async with tenant_tx(self.pool, namespace) as conn:
            dense = await repo.dense_ranked(conn, vector, filters, depth) if vector is not None \
                else []
            lexical = await repo.lexical_ranked(conn, query, filters, depth)
            channels = {"dense": [r["id"] for r in dense], "lexical": [r["id"] for r in lexical]}
            fused = reciprocal_rank_fusion(channels, self.s.rrf_k)[:top_k]
            rows = await repo.fetch_live(conn, [f.key for f in fused])
        distances = {r["id"]: float(r["distance"]) for r in dense}
        lex_scores = {r["id"]: float(r["score"]) for r in lexical}
        hits = [
            SearchHit(rows[f.key], f.score, f.ranks.get("dense", 0), f.ranks.get("lexical", 0),
                      distances.get(f.key, 0.0), lex_scores.get(f.key, 0.0))
            for f in fused if f.key in rows
        ]
        if vector is None:
            return SearchResult(hits, "lexical",
                                "embedder unavailable: lexical (full-text) results only")
        return SearchResult(hits, "hybrid")
