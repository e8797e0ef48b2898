"""Proto <-> domain for consolidation and stats."""

from __future__ import annotations

from typing import Any

from engram.v1 import memory_pb2
from engram_kit.context import current_caller

from .consolidation import Candidates, Consolidation
from .servicer_common import entry_message, store_response
from .stats import MemoryStats


def candidates_response(found: Candidates) -> memory_pb2.ConsolidationCandidatesResponse:
    return memory_pb2.ConsolidationCandidatesResponse(
        scanned=found.scanned, truncated=found.truncated, min_similarity=found.min_similarity,
        clusters=[memory_pb2.ConsolidationCluster(
            members=[memory_pb2.CandidateMember(entry=entry_message(m), similarity=sim)
                     for m, sim in zip(c.members, c.similarity, strict=True)],
            min_similarity=c.min_similarity, shared_terms=c.shared_terms, reason=c.reason)
            for c in found.clusters])


async def candidates(consolidation: Consolidation, request: Any) -> Any:
    found = await consolidation.candidates(current_caller(), request.min_similarity,
                                           request.limit)
    return candidates_response(found)


async def consolidate(consolidation: Consolidation, request: Any) -> Any:
    result = await consolidation.consolidate(current_caller(), list(request.entry_ids),
                                             request.new_text, request.reason)
    return store_response(result)


async def stats(memory_stats: MemoryStats, request: Any) -> Any:
    s = await memory_stats.of(current_caller())
    c = s.counts
    return memory_pb2.MemoryStatsResponse(
        entries_live=c.live, entries_archived=c.archived,
        entries_superseded=c.superseded, entries_unembedded=c.unembedded,
        documents=c.documents, chunks=c.chunks, tombstones=c.tombstones,
        storage_bytes=s.storage_bytes, searches_24h=s.searches_24h)
