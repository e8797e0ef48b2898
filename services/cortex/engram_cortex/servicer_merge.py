"""gRPC handlers for consolidation: near-duplicate entities, their merge,
lesson merging (proto <-> domain only)."""

from __future__ import annotations

from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram_kit.context import current_caller

from .lesson_merge import LessonMerger
from .merging import Merging


class MergeHandlers:
    def __init__(self, merging: Merging, lessons: LessonMerger) -> None:
        self._merging = merging
        self._lesson_merger = lessons

    async def NearDuplicates(self, request: Any, context: Any) -> Any:  # noqa: N802
        found = await self._merging.near_duplicates(current_caller(), list(request.entities))
        return pb.NearDuplicatesResponse(
            entities=[pb.EntityPair(keep=p.keep, merge=p.merge, similarity=p.similarity,
                                    keep_facts=p.keep_facts, merge_facts=p.merge_facts,
                                    reason=p.reason) for p in found.entities],
            facts=[pb.FactPair(entity=f.entity, keep_attribute=f.keep_attribute,
                               merge_attribute=f.merge_attribute, value=f.value,
                               reason=f.reason) for f in found.facts])

    async def MergeEntities(self, request: Any, context: Any) -> Any:  # noqa: N802
        done = await self._merging.merge(current_caller(), request.merge, request.into,
                                         request.reasoning)
        return pb.MergeEntitiesResponse(into=done.into, facts_moved=done.facts_moved,
                                        facts_retired=done.facts_retired,
                                        edges_moved=done.edges_moved)

    async def MergeLessons(self, request: Any, context: Any) -> Any:  # noqa: N802
        merged = await self._lesson_merger.merge(current_caller(), request.batch)
        return pb.MergeLessonsResponse(merged=[pb.LessonMerge(
            kept=str(m.kept), dropped=str(m.dropped), similarity=m.similarity)
            for m in merged])
