"""Event payloads this service writes to its outbox (contracts in events.proto)."""

from __future__ import annotations

import uuid

from engram.v1 import events_pb2
from engram_kit.context import CallerContext
from engram_kit.outbox import new_envelope
from engram_kit.vocab import Finding

ENTRY_STORED_SUBJECT = "engram.events.memory.entry_stored"
ENTRIES_FORGOTTEN_SUBJECT = "engram.events.memory.entries_forgotten"


def entries_forgotten_event(ctx: CallerContext, ids: list[uuid.UUID],
                            reason: str) -> tuple[uuid.UUID, str, bytes]:
    event_id, envelope = new_envelope(ctx, "memory.entries.forgotten")
    envelope.entries_forgotten.CopyFrom(events_pb2.EntriesForgotten(
        entry_ids=[str(i) for i in ids], reason=reason))
    return event_id, ENTRIES_FORGOTTEN_SUBJECT, envelope.SerializeToString()


def entry_stored_event(ctx: CallerContext, entry_id: uuid.UUID, finding: Finding,
                       *, embedded: bool, superseded: list[uuid.UUID] | None = None,
                       contested: list[uuid.UUID] | None = None,
                       ) -> tuple[uuid.UUID, str, bytes]:
    event_id, envelope = new_envelope(ctx, "memory.entry.stored")
    envelope.entry_stored.CopyFrom(events_pb2.EntryStored(
        entry_id=str(entry_id), finding=finding, embedded=embedded,
        superseded=[str(s) for s in superseded or []],
        contested=[str(c) for c in contested or []],
    ))
    return event_id, ENTRY_STORED_SUBJECT, envelope.SerializeToString()
