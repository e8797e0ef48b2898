"""gRPC handlers for documents (mixed into MemoryServicer)."""

from __future__ import annotations

from typing import Any

from engram.v1 import memory_pb2
from engram_kit.context import current_caller
from engram_kit.timestamps import to_timestamp

from .documents import ChunkHit, Documents


def document_hits(hits: list[ChunkHit]) -> list[memory_pb2.DocumentHit]:
    return [memory_pb2.DocumentHit(
        document_id=str(h.chunk["document_id"]), chunk_id=str(h.chunk["id"]),
        ordinal=h.chunk["ordinal"], text=h.chunk["text"], source=h.chunk["source"],
        title=h.chunk["title"], score=h.score, created_at=to_timestamp(h.chunk["created_at"]))
        for h in hits]


class DocumentHandlers:
    documents: Documents

    async def DocumentIngest(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC)
        result = await self.documents.ingest(current_caller(), request.content, request.source,
                                             request.title, request.format, request.data)
        return memory_pb2.DocumentIngestResponse(
            id=str(result.id), chunks=result.chunks, embedded=result.embedded,
            duplicate=result.duplicate)

    async def DocumentSearch(self, request: Any, context: Any) -> Any:  # noqa: N802
        hits, dense = await self.documents.search_query(current_caller(), request.query,
                                                        request.top_k)
        return memory_pb2.DocumentSearchResponse(documents=document_hits(hits),
                                                 mode="hybrid" if dense else "lexical")
