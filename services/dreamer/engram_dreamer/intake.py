"""Event intake: decode, record idempotently, commit; the kit acks after."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC

import asyncpg
from nats.aio.msg import Msg

from engram.v1 import events_pb2
from engram_kit.context import NAMESPACE_RE
from engram_kit.db import tenant_tx
from engram_kit.events import PoisonMessage
from engram_kit.metrics import EVENTS_CONSUMED

from . import repo

log = logging.getLogger(__name__)


class EventIntake:
    def __init__(self, pool: asyncpg.Pool, consumer: str) -> None:
        self.pool = pool
        self.consumer = consumer
        self.connected = False

    def set_connected(self, value: bool) -> None:
        self.connected = value

    async def handle(self, msg: Msg) -> None:
        envelope = events_pb2.EventEnvelope()
        try:
            envelope.ParseFromString(msg.data)
            event_id = uuid.UUID(envelope.event_id)
        except Exception as exc:
            raise PoisonMessage(f"undecodable event on {msg.subject}") from exc
        if not NAMESPACE_RE.match(envelope.namespace):
            raise PoisonMessage(f"event {event_id} has an invalid namespace")
        subject_id = envelope.entry_stored.entry_id if envelope.HasField("entry_stored") else ""
        occurred = envelope.occurred_at.ToDatetime(tzinfo=UTC) if envelope.HasField(
            "occurred_at") else None
        async with tenant_tx(self.pool, envelope.namespace) as conn:
            fresh = await repo.record_event(conn, envelope.namespace, self.consumer, event_id,
                                            envelope.type, subject_id, occurred)
        EVENTS_CONSUMED.labels("dreamer", self.consumer, "new" if fresh else "duplicate").inc()
