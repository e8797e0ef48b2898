"""gRPC servicer of CortexReview: conflicts, the review queue, tags and entity
merges (proto <-> domain only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit.context import current_caller
from engram_kit.vocab import TagStatus

from .merging import Merging
from .messages import conflict_message, review_item_message
from .review import Review
from .review_queue import ReviewQueue
from .stats import Stats
from .tags import TagRegistry

_TAG_NOTES: dict[str, str] = {TagStatus.PROPOSED: "waiting for a reviewer (review_list)",
                              TagStatus.APPROVED: "already an approved tag"}


@dataclass(frozen=True)
class ReviewDeps:
    review: Review
    queue: ReviewQueue
    tags: TagRegistry
    merging: Merging
    stats: Stats


class ReviewServicer(rpc.CortexReviewServicer):
    def __init__(self, deps: ReviewDeps) -> None:
        self._d = deps

    async def ListConflicts(self, request: pb.ListConflictsRequest,
                            context: Any) -> pb.ListConflictsResponse:
        views = await self._d.review.list(current_caller(), request.status, request.limit)
        return pb.ListConflictsResponse(conflicts=[conflict_message(v) for v in views])

    async def ResolveConflict(self, request: pb.ResolveConflictRequest,
                              context: Any) -> pb.ResolveConflictResponse:
        view = await self._d.review.resolve(current_caller(), request.conflict_id,
                                            request.winner_id, request.both_stand,
                                            request.reasoning)
        return pb.ResolveConflictResponse(conflict=conflict_message(view))

    async def ReviewList(self, request: pb.ReviewListRequest,
                         context: Any) -> pb.ReviewListResponse:
        page = await self._d.queue.list(current_caller(), request.kind, request.cursor,
                                        request.limit, request.q)
        return pb.ReviewListResponse(items=[review_item_message(i) for i in page.items],
                                     next_cursor=page.next_cursor, total=page.total)

    async def ReviewDecide(self, request: pb.ReviewDecideRequest,
                           context: Any) -> pb.ReviewDecideResponse:
        kind, status = await self._d.queue.decide(current_caller(), request.item_id,
                                                  request.decision, request.winner_id,
                                                  request.reasoning)
        return pb.ReviewDecideResponse(item_id=request.item_id, kind=kind, status=status)

    async def ProposeRootTag(self, request: pb.TagRequest, context: Any) -> pb.TagResponse:
        tag, status = await self._d.tags.propose_root(current_caller(), request.tag,
                                                      request.reason)
        return pb.TagResponse(tag=tag, status=status, note=_TAG_NOTES.get(status, ""))

    async def AddTagAlias(self, request: pb.TagRequest, context: Any) -> pb.TagResponse:
        tag = await self._d.tags.add_alias(current_caller(), request.alias, request.tag)
        return pb.TagResponse(tag=tag, status=TagStatus.APPROVED,
                              note=f"{request.alias.strip().lower()} now resolves to {tag}")

    async def NearDuplicates(self, request: pb.NearDuplicatesRequest,
                             context: Any) -> pb.NearDuplicatesResponse:
        found = await self._d.merging.near_duplicates(current_caller(),
                                                      list(request.entities))
        return pb.NearDuplicatesResponse(
            entities=[pb.EntityPair(keep=p.keep, merge=p.merge, similarity=p.similarity,
                                    keep_facts=p.keep_facts, merge_facts=p.merge_facts,
                                    reason=p.reason) for p in found.entities],
            facts=[pb.FactPair(entity=f.entity, keep_attribute=f.keep_attribute,
                               merge_attribute=f.merge_attribute, value=f.value,
                               reason=f.reason) for f in found.facts])

    async def MergeEntities(self, request: pb.MergeEntitiesRequest,
                            context: Any) -> pb.MergeEntitiesResponse:
        done = await self._d.merging.merge(current_caller(), request.merge, request.into,
                                           request.reasoning)
        return pb.MergeEntitiesResponse(into=done.into, facts_moved=done.facts_moved,
                                        facts_retired=done.facts_retired,
                                        edges_moved=done.edges_moved)

    async def Stats(self, request: pb.CortexStatsRequest,  # noqa: N802
                    context: Any) -> pb.CortexStatsResponse:
        found = await self._d.stats.of(current_caller())
        t = found.totals
        return pb.CortexStatsResponse(
            facts=[pb.FactCount(kind=r.kind, verdict=r.verdict, count=r.n)
                   for r in found.facts],
            open_conflicts=t.conflicts, proposed_tags=t.tags, lessons=t.lessons,
            recalls_24h=found.recalls_24h)
