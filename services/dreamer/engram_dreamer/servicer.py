"""gRPC servicer: Status is served; consolidation RPCs await issue #6."""

from __future__ import annotations

from typing import Any

import asyncpg

from engram.v1 import dreamer_pb2, dreamer_pb2_grpc
from engram_kit.context import current_caller
from engram_kit.db import tenant_tx
from engram_kit.errors import NotImplementedYet
from engram_kit.timestamps import to_timestamp

from . import repo
from .intake import EventIntake
from .settings import DreamerSettings

_NOT_BUILT = "dream passes are not built yet: no extractor is configured (see issue #6)"


class DreamerServicer(dreamer_pb2_grpc.DreamerServiceServicer):
    def __init__(self, pool: asyncpg.Pool, intake: EventIntake, s: DreamerSettings) -> None:
        self.pool = pool
        self.intake = intake
        self.s = s

    async def Status(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC name)
        namespace = current_caller().require_namespace()
        async with tenant_tx(self.pool, namespace) as conn:
            stats = await repo.event_stats(conn)
        return dreamer_pb2.DreamStatusResponse(
            extractor=self.s.extractor, events_processed=stats["n"],
            last_event_at=to_timestamp(stats["last"]),
            consumer_connected=self.intake.connected,
        )

    async def Run(self, request: Any, context: Any) -> Any:  # noqa: N802
        raise NotImplementedYet(_NOT_BUILT)

    async def Runs(self, request: Any, context: Any) -> Any:  # noqa: N802
        raise NotImplementedYet(_NOT_BUILT)

    async def Rollback(self, request: Any, context: Any) -> Any:  # noqa: N802
        raise NotImplementedYet(_NOT_BUILT)
