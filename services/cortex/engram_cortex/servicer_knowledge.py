"""gRPC handlers for world facts, outcomes/lessons, tags and the review
queue (proto <-> domain only)."""

from __future__ import annotations

from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram_kit.context import current_caller
from engram_kit.timestamps import to_timestamp

from .lessons import Lessons
from .review_queue import Item, ReviewQueue
from .tags import TagRegistry
from .world import World, WorldView


def world_message(v: WorldView) -> pb.WorldFact:
    r = v.row
    return pb.WorldFact(
        id=str(r["id"]), entity=r["entity"], attribute=r["attribute"], value=r["value"],
        source_url=r["source_url"], source_quote=r["source_quote"], freshness=r["freshness"],
        confidence=r["confidence"], effective_confidence=round(v.effective, 4),
        stale=v.stale, checked_at=to_timestamp(r["checked_at"]),
        recorded_at=to_timestamp(r["recorded_at"]), score=float(r.get("score") or 0.0))


def lesson_message(r: Any) -> pb.Lesson:
    return pb.Lesson(
        id=str(r["id"]), polarity=r["polarity"], text=r["text"], task=r["task"],
        confidence=r["confidence"], signals=r["signals"],
        subject_fact_ids=[str(i) for i in r["subject_fact_ids"]],
        re_verify=bool(r["re_verify"]), distilled_by=r["distilled_by"],
        score=float(r.get("score") or 0.0))


class KnowledgeHandlers:
    def __init__(self, world: World, lessons: Lessons, tags: TagRegistry, queue: ReviewQueue,
                 conflict_message: Any) -> None:
        self._world = world
        self._lessons = lessons
        self._tags = tags
        self._queue = queue
        self._conflict = conflict_message

    async def WorldSet(self, request: pb.WorldSetRequest, context: Any) -> pb.WorldSetResponse:
        action, view = await self._world.set(
            current_caller(), request.entity, request.attribute, request.value,
            request.source_url, request.source_quote, request.freshness, request.confidence)
        return pb.WorldSetResponse(action=action, fact=world_message(view))

    async def WorldSearch(self, request: pb.TextSearchRequest,
                          context: Any) -> pb.WorldSearchResponse:
        found = await self._world.search(current_caller(), request.query, request.top_k)
        return pb.WorldSearchResponse(facts=[world_message(v) for v in found])

    async def RecordOutcome(self, request: pb.OutcomeRequest,
                            context: Any) -> pb.OutcomeResponse:
        done = await self._lessons.record(current_caller(), request.task, request.outcome,
                                          request.detail, list(request.used_ids))
        reply = pb.OutcomeResponse(outcome_id=str(done.outcome_id),
                                   identical_signals=done.identical)
        if done.lesson is not None:
            reply.lesson.CopyFrom(lesson_message(done.lesson))
        return reply

    async def LessonSearch(self, request: pb.TextSearchRequest,
                           context: Any) -> pb.LessonSearchResponse:
        rows = await self._lessons.search(current_caller(), request.query, request.top_k)
        return pb.LessonSearchResponse(lessons=[lesson_message(r) for r in rows])

    async def ProposeRootTag(self, request: pb.TagRequest, context: Any) -> pb.TagResponse:
        tag, status = await self._tags.propose_root(current_caller(), request.tag,
                                                    request.reason)
        note = {"proposed": "waiting for a reviewer (review_list)",
                "approved": "already an approved tag"}.get(status, "")
        return pb.TagResponse(tag=tag, status=status, note=note)

    async def AddTagAlias(self, request: pb.TagRequest, context: Any) -> pb.TagResponse:
        tag = await self._tags.add_alias(current_caller(), request.alias, request.tag)
        return pb.TagResponse(tag=tag, status="approved",
                              note=f"{request.alias.strip().lower()} now resolves to {tag}")

    async def ReviewList(self, request: pb.ReviewListRequest,
                         context: Any) -> pb.ReviewListResponse:
        items = await self._queue.list(current_caller(), request.kind)
        return pb.ReviewListResponse(items=[self._item(i) for i in items])

    def _item(self, i: Item) -> pb.ReviewItem:
        item = pb.ReviewItem(id=i.id, kind=i.kind, summary=i.summary,
                             created_at=to_timestamp(i.created_at), decide_call=i.decide_call)
        if i.conflict is not None:
            item.conflict.CopyFrom(self._conflict(i.conflict))
        return item

    async def ReviewDecide(self, request: pb.ReviewDecideRequest,
                           context: Any) -> pb.ReviewDecideResponse:
        kind, status = await self._queue.decide(current_caller(), request.item_id,
                                                request.decision, request.winner_id,
                                                request.reasoning)
        return pb.ReviewDecideResponse(item_id=request.item_id, kind=kind, status=status)
