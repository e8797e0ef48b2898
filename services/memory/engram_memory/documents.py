"""Documents: verbatim ingest, chunking, hybrid chunk search."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass

import asyncpg
import numpy as np

from engram_kit import audit
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.errors import InvalidArgument

from . import documents_repo as repo
from .chunking import chunk, plain_text
from .fusion import reciprocal_rank_fusion
from .settings import MemorySettings
from .validation import clean_source, clean_text, clean_top_k

FORMATS = ("text", "markdown", "html")
EMBED_GROUP = 256


@dataclass
class IngestResult:
    id: uuid.UUID
    chunks: int
    embedded: bool
    duplicate: bool


@dataclass
class ChunkHit:
    chunk: asyncpg.Record
    score: float


class Documents:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: MemorySettings) -> None:
        self.pool = pool
        self.embedder = embedder
        self.s = settings

    async def ingest(self, ctx: CallerContext, content: str, source: str, title: str,
                     fmt: str) -> IngestResult:
        namespace = ctx.require_namespace()
        content = clean_text(content, self.s.max_document_chars, "content")
        source = clean_text(clean_source(source, self.s), self.s.max_source_chars, "source")
        fmt = (fmt or "text").lower()
        if fmt not in FORMATS:
            raise InvalidArgument(f"format must be one of {', '.join(FORMATS)}", field="format")
        digest = hashlib.sha256(content.encode()).hexdigest()
        async with tenant_tx(self.pool, namespace) as conn:
            known = await repo.find_by_hash(conn, digest)
        if known is not None:
            return IngestResult(known["id"], known["chunks"], known["embedded"], duplicate=True)
        pieces = chunk(plain_text(content, fmt))
        vectors = await self._embed([p.text for p in pieces], ctx)
        doc_id = uuid.uuid4()
        async with tenant_tx(self.pool, namespace) as conn:
            await repo.insert_document(conn, doc_id, namespace, source, title[:200], fmt,
                                       content, digest, ctx.principal)
            await repo.insert_chunks(conn, [
                (uuid.uuid4(), namespace, doc_id, p.ordinal, p.start, p.text,
                 vectors[i] if vectors is not None else None) for i, p in enumerate(pieces)])
            await audit.append(conn, namespace, ctx.principal, "document.ingest", str(doc_id),
                               {"content_sha256": digest, "chunks": len(pieces),
                                "source": source})
        return IngestResult(doc_id, len(pieces), vectors is not None, duplicate=False)

    async def _embed(self, texts: list[str], ctx: CallerContext) -> list[np.ndarray] | None:
        out: list[np.ndarray] = []
        for i in range(0, len(texts), EMBED_GROUP):
            group = await self.embedder.embed_documents(texts[i:i + EMBED_GROUP], ctx, 120.0)
            if group is None:
                return None
            out.extend(group)
        return out

    async def search_query(self, ctx: CallerContext, query: str,
                           top_k: int) -> tuple[list[ChunkHit], bool]:
        """Validate, embed and search; returns the hits and whether the dense
        channel took part (False: the embedder was unavailable)."""
        query = clean_text(query, self.s.max_query_chars, "query")
        top_k = clean_top_k(top_k, self.s)
        vector = await self.embedder.embed_one(query, ctx, query=True)
        return await self.search(ctx, query, top_k, vector), vector is not None

    async def search(self, ctx: CallerContext, query: str, top_k: int,
                     vector: np.ndarray | None) -> list[ChunkHit]:
        depth = max(top_k * 4, 20)
        async with tenant_tx(self.pool, ctx.require_namespace()) as conn:
            dense = await repo.dense_chunks(conn, vector, depth) if vector is not None else []
            lexical = await repo.lexical_chunks(conn, query, depth)
            fused = reciprocal_rank_fusion({"dense": [r["id"] for r in dense],
                                            "lexical": [r["id"] for r in lexical]},
                                           self.s.rrf_k)[:top_k]
            rows = await repo.chunks_by_ids(conn, [f.key for f in fused])
        return [ChunkHit(rows[f.key], f.score) for f in fused if f.key in rows]
