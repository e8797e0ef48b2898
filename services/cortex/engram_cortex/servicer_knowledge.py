"""gRPC servicer of CortexKnowledge: world facts, outcomes and lessons, the
session briefing (proto <-> domain only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit.context import current_caller

from .lesson_merge import LessonMerger
from .lessons import Lessons
from .messages import lesson_message, served, world_message
from .reads import FactReader
from .world import World


@dataclass(frozen=True)
class KnowledgeDeps:
    reader: FactReader  # the briefing's rules
    world: World
    lessons: Lessons
    lesson_merger: LessonMerger


class KnowledgeServicer(rpc.CortexKnowledgeServicer):
    def __init__(self, deps: KnowledgeDeps) -> None:
        self._d = deps

    async def KnowledgeBriefing(self, request: pb.KnowledgeBriefingRequest,
                                context: Any) -> pb.KnowledgeBriefingResponse:
        caller = current_caller()
        rules, rules_total = await self._d.reader.briefing(caller, request.rules)
        lessons, lessons_total = await self._d.lessons.briefing(caller, request.lessons)
        state, state_total = await self._d.reader.briefing_state(caller, request.state)
        return pb.KnowledgeBriefingResponse(
            rules=served(rules), rules_total=rules_total,
            lessons=[lesson_message(f.row, f.re_verify) for f in lessons],
            lessons_total=lessons_total,
            state=served(state), state_total=state_total)

    async def WorldSet(self, request: pb.WorldSetRequest, context: Any) -> pb.WorldSetResponse:
        action, view = await self._d.world.set(
            current_caller(), request.entity, request.attribute, request.value,
            request.source_url, request.source_quote, request.freshness, request.confidence)
        return pb.WorldSetResponse(action=action, fact=world_message(view))

    async def WorldSearch(self, request: pb.TextSearchRequest,
                          context: Any) -> pb.WorldSearchResponse:
        found = await self._d.world.search(current_caller(), request.query, request.top_k)
        return pb.WorldSearchResponse(facts=[world_message(v) for v in found])

    async def RecordOutcome(self, request: pb.OutcomeRequest,
                            context: Any) -> pb.OutcomeResponse:
        done = await self._d.lessons.record(current_caller(), request.task, request.outcome,
                                            request.detail, list(request.used_ids))
        reply = pb.OutcomeResponse(outcome_id=str(done.outcome_id),
                                   identical_signals=done.identical)
        if done.lesson is not None:
            reply.lesson.CopyFrom(lesson_message(done.lesson))
        return reply

    async def LessonSearch(self, request: pb.TextSearchRequest,
                           context: Any) -> pb.LessonSearchResponse:
        rows = await self._d.lessons.search(current_caller(), request.query, request.top_k)
        return pb.LessonSearchResponse(lessons=[lesson_message(f.row, f.re_verify) for f in rows])

    async def MergeLessons(self, request: pb.MergeLessonsRequest,
                           context: Any) -> pb.MergeLessonsResponse:
        merged = await self._d.lesson_merger.merge(current_caller(), request.batch)
        return pb.MergeLessonsResponse(merged=[pb.LessonMerge(
            kept=str(m.kept), dropped=str(m.dropped), similarity=m.similarity)
            for m in merged])
