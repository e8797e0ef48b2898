"""Replies of the document RPCs (MemoryServicer delegates to these)."""

from __future__ import annotations

from typing import Any

from engram.v1 import memory_pb2
from engram_kit.context import current_caller
from engram_kit.timestamps import to_timestamp

from .documents import ChunkHit, Documents


def document_hits(hits: list[ChunkHit]) -> list[memory_pb2.DocumentHit]:
    return [memory_pb2.DocumentHit(
        document_id=str(h.chunk.document_id), chunk_id=str(h.chunk.id),
        ordinal=h.chunk.ordinal, text=h.chunk.text, source=h.chunk.source,
        title=h.chunk.title, score=h.score, created_at=to_timestamp(h.chunk.created_at))
        for h in hits]


async def ingest(documents: Documents, request: Any) -> memory_pb2.DocumentIngestResponse:
    result = await documents.ingest(current_caller(), request.content, request.source,
                                    request.title, request.format, request.data)
    return memory_pb2.DocumentIngestResponse(
        id=str(result.id), chunks=result.chunks, embedded=result.embedded,
        duplicate=result.duplicate)


async def search(documents: Documents, request: Any) -> memory_pb2.DocumentSearchResponse:
    hits, dense = await documents.search_query(current_caller(), request.query, request.top_k)
    return memory_pb2.DocumentSearchResponse(documents=document_hits(hits),
                                             mode="hybrid" if dense else "lexical")


async def get(documents: Documents, request: Any) -> memory_pb2.DocumentGetResponse:
    meta, chunks = await documents.get(current_caller(), request.document_id,
                                       request.chunk_offset, request.chunk_limit)
    last = chunks[-1].ordinal + 1 if chunks else 0
    return memory_pb2.DocumentGetResponse(
        id=str(meta.id), source=meta.source, title=meta.title, format=meta.format,
        chars=meta.chars, total_chunks=meta.chunks, created_by=meta.created_by,
        created_at=to_timestamp(meta.created_at),
        chunks=[memory_pb2.DocumentChunk(ordinal=c.ordinal, start_char=c.start_char,
                                         text=c.text, embedded=c.embedded)
                for c in chunks],
        next_offset=last if chunks and last < meta.chunks else 0)
