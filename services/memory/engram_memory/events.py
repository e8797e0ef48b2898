"""Event payloads this service writes to its outbox (contracts in events.proto)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from engram.v1 import events_pb2
from engram_kit.context import CallerContext

ENTRY_STORED_SUBJECT = "engram.events.memory.entry_stored"


def entry_stored_event(ctx: CallerContext, entry_id: uuid.UUID, finding: str,
                       *, embedded: bool) -> tuple[uuid.UUID, str, bytes]:
    event_id = uuid.uuid4()
    occurred = Timestamp()
    occurred.FromDatetime(datetime.now(UTC))
    envelope = events_pb2.EventEnvelope(
        event_id=str(event_id), type="memory.entry.stored", namespace=ctx.namespace,
        principal=ctx.principal, occurred_at=occurred,
        entry_stored=events_pb2.EntryStored(
            entry_id=str(entry_id), finding=finding, embedded=embedded
        ),
    )
    return event_id, ENTRY_STORED_SUBJECT, envelope.SerializeToString()
