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
from engram_kit.errors import InvalidArgument, NotFound
from engram_kit.ranking import Channel, reciprocal_rank_fusion

from . import repo_documents as repo
from . import repo_vector_queue as vector_queue
from .chunking import chunk, plain_text
from .pdf_worker import PdfExtractor
from .repo import TermLimits
from .rows_documents import ChunkHitRow, ChunkRow, DocumentMeta
from .settings import MemorySettings
from .validation import clean_source, clean_text, clean_top_k

FORMATS = ("text", "markdown", "html", "pdf")
EMBED_GROUP = 256
# document_get pages a document's chunks: its default and largest page.
CHUNK_PAGE = 20
MAX_CHUNK_PAGE = 50


@dataclass
class IngestResult:
    id: uuid.UUID
    chunks: int
    embedded: bool
    duplicate: bool


@dataclass
class ChunkHit:
    chunk: ChunkHitRow
    score: float


def chunk_term_limits(max_df: float, match_budget: int) -> TermLimits:
    """The entries' term limits with textbook BM25 weights: chunks are long,
    so their length matters (entries use k1/b from the settings)."""
    return TermLimits(max_df, match_budget, k1=1.2, b=0.75)


class Documents:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: MemorySettings, pdf: PdfExtractor) -> None:
        self.pool = pool
        self.pdf = pdf
        self.embedder = embedder
        self.s = settings
        self.terms = chunk_term_limits(settings.lexical_max_df, settings.lexical_match_budget)

    async def ingest(self, ctx: CallerContext, content: str, source: str, title: str,
                     fmt: str, data: bytes = b"") -> IngestResult:
        namespace = ctx.require_namespace()
        source = clean_text(clean_source(source, self.s), self.s.max_source_chars, "source")
        fmt = (fmt or "text").lower()
        if fmt not in FORMATS:
            raise InvalidArgument(f"format must be one of {', '.join(FORMATS)}", field="format")
        text, original = await self._source_text(content, fmt, data)
        body = original or text.encode()
        digest = hashlib.sha256(body).hexdigest()  # finds a duplicate; sits beside the text
        async with tenant_tx(self.pool, namespace) as conn:
            known = await repo.find_by_hash(conn, digest)
        if known is not None:
            return IngestResult(known.id, known.chunks, known.embedded, duplicate=True)
        pieces = chunk(plain_text(text, fmt))
        vectors = await self._embed([p.text for p in pieces], ctx)
        doc_id = uuid.uuid4()
        async with audit.audited_tx(self.pool, namespace) as conn:
            await repo.insert_document(conn, doc_id, namespace, source, title[:200], fmt,
                                       text, digest, ctx.principal, original)
            chunk_ids = [uuid.uuid4() for _ in pieces]
            await repo.insert_chunks(conn, [
                (chunk_ids[i], namespace, doc_id, p.ordinal, p.start, p.text,
                 vectors[i] if vectors is not None else None) for i, p in enumerate(pieces)])
            if vectors is None:  # the re-embed sweep fills them in when it is back
                await vector_queue.enqueue(conn, vector_queue.CHUNKS, namespace, chunk_ids)
            await audit.append(conn, namespace, ctx.principal, "document.ingest", str(doc_id),
                               {"content_hmac": audit.content_digest(body),
                                "chunks": len(pieces),
                                "source": source, "format": fmt})
        return IngestResult(doc_id, len(pieces), vectors is not None, duplicate=False)

    async def _source_text(self, content: str, fmt: str, data: bytes) -> tuple[str, bytes | None]:
        """The text to chunk, and the original bytes when the text is extracted."""
        if fmt != "pdf":
            if data:
                raise InvalidArgument(f"binary data is only taken with format pdf, not {fmt}",
                                      field="data")
            return clean_text(content, self.s.max_document_chars, "content"), None
        if not data:
            raise InvalidArgument("format pdf needs the file's bytes (base64 in content)",
                                  field="content")
        if len(data) > self.s.max_pdf_bytes:
            raise InvalidArgument(f"the PDF is {len(data)} bytes; the limit is "
                                  f"{self.s.max_pdf_bytes}", field="content")
        text = await self.pdf.text(data)
        return clean_text(text, self.s.max_document_chars, "content"), data

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
            lexical = await repo.lexical_chunks(conn, query, depth, self.terms)
            fused = reciprocal_rank_fusion({Channel.DENSE: [i for i, _ in dense],
                                            Channel.LEXICAL: [i for i, _ in lexical]},
                                           self.s.rrf_k)[:top_k]
            rows = await repo.chunks_by_ids(conn, [f.key for f in fused])
        return [ChunkHit(rows[f.key], f.score) for f in fused if f.key in rows]

    async def get(self, ctx: CallerContext, document_id: str, offset: int,
                  limit: int) -> tuple[DocumentMeta, list[ChunkRow]]:
        """One document's metadata and the page of its chunks from ordinal `offset`."""
        try:
            doc_id = uuid.UUID(document_id)
        except ValueError:
            raise InvalidArgument(f"document_id must be a document id (a UUID), got "
                                  f"{document_id[:40]!r}", field="document_id") from None
        limit = limit or CHUNK_PAGE
        if not 1 <= limit <= MAX_CHUNK_PAGE:
            raise InvalidArgument(f"chunk_limit is 1-{MAX_CHUNK_PAGE}", field="chunk_limit")
        if offset < 0:
            raise InvalidArgument("chunk_offset must not be negative", field="chunk_offset")
        async with tenant_tx(self.pool, ctx.require_namespace()) as conn:
            meta = await repo.document_meta(conn, doc_id)
            if meta is None:
                raise NotFound(f"no document {doc_id}")
            return meta, await repo.chunk_page(conn, doc_id, offset, limit)
