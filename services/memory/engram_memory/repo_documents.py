"""SQL for documents and their chunks. The caller owns the transaction."""

from __future__ import annotations

from uuid import UUID

import asyncpg
import numpy as np

from engram_kit.rows import select_list

from .repo import TermLimits, ranked_pairs
from .rows_documents import (
    ChunkHitRow,
    ChunkRow,
    DocumentMeta,
    DocumentTombstone,
    KnownDocument,
    LockedDocument,
)

# The rows' fields that are expressions or qualified columns: what each selects.
_KNOWN = {"id": "d.id", "chunks": "count(c.id) AS chunks",
          "embedded": "coalesce(bool_and(c.embedding IS NOT NULL), true) AS embedded"}
_CHUNK_COUNT = "(SELECT count(*) FROM document_chunks c WHERE c.document_id = d.id) AS chunks"
_LOCKED = {"chunks": _CHUNK_COUNT}
_META = {"id": "d.id", "source": "d.source", "title": "d.title", "format": "d.format",
         "chars": "length(d.content) AS chars", "created_by": "d.created_by",
         "created_at": "d.created_at", "chunks": _CHUNK_COUNT}
_HIT = {"id": "c.id", "document_id": "c.document_id", "ordinal": "c.ordinal",
        "start_char": "c.start_char", "text": "c.text", "source": "d.source",
        "title": "d.title", "created_at": "d.created_at"}
_PAGE = {"embedded": "embedding IS NOT NULL AS embedded"}


async def find_by_hash(conn: asyncpg.Connection, content_hash: str) -> KnownDocument | None:
    row = await conn.fetchrow(
        f"SELECT {select_list(KnownDocument, _KNOWN)}"
        " FROM documents d LEFT JOIN document_chunks c ON c.document_id = d.id"
        " WHERE d.content_hash = $1 GROUP BY d.id", content_hash,
    )
    return None if row is None else KnownDocument.of(row)


async def insert_document(conn: asyncpg.Connection, doc_id: UUID, namespace: str, source: str,
                          title: str, fmt: str, content: str, content_hash: str,
                          by: str, original: bytes | None = None) -> None:
    await conn.execute(
        "INSERT INTO documents (id, namespace, source, title, format, content, content_hash,"
        " created_by, original) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        doc_id, namespace, source, title, fmt, content, content_hash, by, original,
    )


async def insert_chunks(conn: asyncpg.Connection, rows: list[tuple]) -> None:
    """rows: (id, namespace, document_id, ordinal, start_char, text, embedding|None)."""
    await conn.executemany(
        "INSERT INTO document_chunks (id, namespace, document_id, ordinal, start_char, text,"
        " embedding) VALUES ($1, $2, $3, $4, $5, $6, $7)", rows,
    )


async def dense_chunks(conn: asyncpg.Connection, embedding: np.ndarray,
                       limit: int) -> list[tuple[UUID, float]]:
    """(id, distance) of the nearest chunks, nearest first."""
    return ranked_pairs(await conn.fetch(
        "WITH knn AS MATERIALIZED (SELECT id, embedding <=> $1 AS distance"
        "  FROM document_chunks WHERE embedding IS NOT NULL ORDER BY embedding <=> $1 LIMIT $2)"
        " SELECT id, distance FROM knn ORDER BY distance", embedding, limit,
    ))


async def lexical_chunks(conn: asyncpg.Connection, query: str, limit: int,
                         terms: TermLimits) -> list[tuple[UUID, float]]:
    """(id, score): BM25 over the query's kept terms (migration 0013), from the chunks'
    postings alone: an index lookup under RLS, bounded by the term limits."""
    return ranked_pairs(await conn.fetch(
        "WITH terms AS MATERIALIZED (SELECT lexeme, idf FROM chunk_lexical_terms($1, $3, $4)"
        "                           WHERE kept),"
        " tot AS (SELECT greatest(tokens::float8 / greatest(chunks, 1), 1) AS avgdl"
        "         FROM chunk_lexicon_totals)"
        " SELECT p.chunk_id AS id, sum(t.idf * p.tf * ($5::float8 + 1) / (p.tf + $5::float8"
        "   * (1 - $6::float8 + $6::float8 * p.doc_len / tot.avgdl))) AS score"
        " FROM terms t JOIN chunk_lexemes p ON p.lexeme = t.lexeme, tot"
        " GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT $2",
        query, limit, terms.max_df, terms.match_budget, terms.k1, terms.b,
    ))


async def chunks_by_ids(conn: asyncpg.Connection,
                        ids: list[UUID]) -> dict[UUID, ChunkHitRow]:
    rows = await conn.fetch(
        f"SELECT {select_list(ChunkHitRow, _HIT)}"
        " FROM document_chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE c.id = ANY($1::uuid[])", ids,
    )
    return {r["id"]: ChunkHitRow.of(r) for r in rows}


async def lock_document(conn: asyncpg.Connection, doc_id: UUID) -> LockedDocument | None:
    row = await conn.fetchrow(
        f"SELECT {select_list(LockedDocument, _LOCKED)} FROM documents d WHERE id = $1"
        " FOR UPDATE", doc_id)
    return None if row is None else LockedDocument.of(row)


async def delete_document(conn: asyncpg.Connection, doc_id: UUID) -> None:
    """Chunks, their vectors, lexical postings and queue rows go with it
    (ON DELETE CASCADE and the chunk lexicon trigger)."""
    await conn.execute("DELETE FROM documents WHERE id = $1", doc_id)


async def add_tombstone(conn: asyncpg.Connection, namespace: str, doc_id: UUID, digest: str,
                        reason: str, by: str) -> UUID:
    value = await conn.fetchval(
        "INSERT INTO document_tombstones (id, namespace, document_id, content_hmac, reason,"
        " forgotten_by) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5) RETURNING id",
        namespace, doc_id, digest, reason, by)
    assert value is not None  # INSERT ... RETURNING yields the id
    return value


async def tombstone_for_document(conn: asyncpg.Connection,
                                 doc_id: UUID) -> DocumentTombstone | None:
    row = await conn.fetchrow(
        f"SELECT {select_list(DocumentTombstone)} FROM document_tombstones"
        " WHERE document_id = $1", doc_id)
    return None if row is None else DocumentTombstone.of(row)


async def document_meta(conn: asyncpg.Connection, doc_id: UUID) -> DocumentMeta | None:
    row = await conn.fetchrow(
        f"SELECT {select_list(DocumentMeta, _META)} FROM documents d WHERE d.id = $1", doc_id)
    return None if row is None else DocumentMeta.of(row)


async def chunk_page(conn: asyncpg.Connection, doc_id: UUID, offset: int,
                     limit: int) -> list[ChunkRow]:
    return ChunkRow.all(await conn.fetch(
        f"SELECT {select_list(ChunkRow, _PAGE)}"
        " FROM document_chunks WHERE document_id = $1 AND ordinal >= $2"
        " ORDER BY ordinal LIMIT $3", doc_id, offset, limit))
