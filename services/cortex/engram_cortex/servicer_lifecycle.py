"""gRPC servicer of CortexLifecycle: world facts retracted and restored,
lessons retired and restored, facts erased, contenders decided, a writer's
facts retracted (proto <-> domain only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.v1 import common_pb2
from engram.v1 import cortex_pb2 as pb
from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit.context import current_caller
from engram_kit.writer_window import WriterWindow

from .erasure import Erasure
from .messages import fact_message, lesson_message, world_message
from .retraction import Retraction
from .world import decayed


@dataclass(frozen=True)
class LifecycleDeps:
    retraction: Retraction
    erasure: Erasure


class LifecycleServicer(rpc.CortexLifecycleServicer):
    def __init__(self, deps: LifecycleDeps) -> None:
        self._r = deps.retraction
        self._e = deps.erasure

    async def WorldRetract(self, request: pb.WorldRetractRequest,
                           context: Any) -> pb.WorldRetractResponse:
        rows, erased = await self._r.world_retract(current_caller(), request.entity,
                                                   request.attribute, request.reason,
                                                   request.erase)
        return pb.WorldRetractResponse(facts=[world_message(decayed(r)) for r in rows],
                                       erased=erased)

    async def WorldRestore(self, request: pb.WorldRetractRequest,
                           context: Any) -> pb.WorldRetractResponse:
        rows = await self._r.world_restore(current_caller(), request.entity,
                                           request.attribute, request.reason)
        return pb.WorldRetractResponse(facts=[world_message(decayed(r)) for r in rows])

    async def LessonRetire(self, request: pb.LessonRetireRequest,
                           context: Any) -> pb.LessonRetireResponse:
        row = await self._r.lesson_retire(current_caller(), request.lesson_id, request.reason,
                                          request.erase)
        if row is None:
            return pb.LessonRetireResponse(erased=True)
        return pb.LessonRetireResponse(lesson=lesson_message(row))

    async def LessonRestore(self, request: pb.LessonRetireRequest,
                            context: Any) -> pb.LessonRetireResponse:
        row = await self._r.lesson_restore(current_caller(), request.lesson_id, request.reason)
        return pb.LessonRetireResponse(lesson=lesson_message(row))

    async def FactForget(self, request: pb.FactForgetRequest,
                         context: Any) -> pb.FactForgetResponse:
        ids = await self._e.fact_forget(current_caller(), request.entity, request.attribute,
                                        request.value, request.reason)
        return pb.FactForgetResponse(ids=ids)

    async def ContenderDecide(self, request: pb.ContenderDecideRequest,
                              context: Any) -> pb.ContenderDecideResponse:
        done = await self._e.contender_decide(current_caller(), request.fact_id,
                                              request.decision, request.reasoning)
        return pb.ContenderDecideResponse(fact=fact_message(done.fact),
                                          superseded=[str(r.id) for r in done.superseded])

    async def ForgetByWriter(self, request: common_pb2.ForgetByWriterRequest,
                             context: Any) -> common_pb2.ForgetByWriterResponse:
        done = await self._e.forget_by_writer(current_caller(), WriterWindow.of(request))
        return common_pb2.ForgetByWriterResponse(ids=done.ids, more=done.more, limit=done.limit)
