"""gRPC servicer: proto <-> domain translation only."""

from __future__ import annotations

from typing import Any

import asyncpg

from engram.v1 import memory_pb2, memory_pb2_grpc
from engram_kit.context import current_caller
from engram_kit.timestamps import optional_datetime, to_timestamp

from .service import MemoryService, SearchInput, StoreInput

FINDINGS = {
    "new": memory_pb2.FINDING_NEW,
    "restatement": memory_pb2.FINDING_RESTATEMENT,
    "paraphrase": memory_pb2.FINDING_PARAPHRASE,
    "update": memory_pb2.FINDING_UPDATE,
    "conflict": memory_pb2.FINDING_CONFLICT,
}


def entry_message(row: asyncpg.Record) -> memory_pb2.Entry:
    return memory_pb2.Entry(
        id=str(row["id"]), text=row["text"], source=row["source"], tags=list(row["tags"]),
        origin=row["origin"], episode=row["episode"] or "", status=row["status"],
        created_at=to_timestamp(row["created_at"]), valid_from=to_timestamp(row["valid_from"]),
        writer_principal=row["writer_principal"], embedded=row["embedded"],
    )


class MemoryServicer(memory_pb2_grpc.MemoryServiceServicer):
    def __init__(self, service: MemoryService) -> None:
        self.service = service

    async def Store(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC name)
        result = await self.service.store(current_caller(), StoreInput(
            text=request.text, source=request.source, tags=list(request.tags),
            origin=request.origin, episode=request.episode,
            valid_from=optional_datetime(request, "valid_from"),
        ))
        return memory_pb2.StoreResponse(
            id=str(result.id), finding=FINDINGS[result.finding],
            related=[str(r) for r in result.related],
            superseded=[str(s) for s in result.superseded], embedded=result.embedded,
            entry=entry_message(result.entry),
        )

    async def Search(self, request: Any, context: Any) -> Any:  # noqa: N802
        result = await self.service.search(current_caller(), SearchInput(
            query=request.query, top_k=request.top_k, tags=list(request.tags),
            source=request.source, since=optional_datetime(request, "since"),
            until=optional_datetime(request, "until"),
        ))
        hits = []
        for hit in result.hits:
            trace = None
            if request.explain:
                trace = memory_pb2.RankTrace(
                    dense_rank=hit.dense_rank, lexical_rank=hit.lexical_rank,
                    dense_distance=hit.dense_distance, lexical_score=hit.lexical_score,
                )
            hits.append(memory_pb2.SearchHit(
                entry=entry_message(hit.entry), score=hit.score, label="current", trace=trace,
            ))
        return memory_pb2.SearchResponse(hits=hits, mode=result.mode, note=result.note)
