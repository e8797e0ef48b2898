"""Event intake: decode, record idempotently, commit; the kit acks after."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC
from enum import StrEnum

import asyncpg
from nats.aio.msg import Msg

from engram.v1 import events_pb2
from engram_kit.context import NAMESPACE_RE
from engram_kit.db import tenant_tx
from engram_kit.events import PoisonMessage
from engram_kit.metrics import EVENTS_CONSUMED
from engram_kit.vocab import EvidenceChange, Finding

from . import repo, repo_passes
from .backends import Backends

log = logging.getLogger(__name__)


class Publisher(StrEnum):
    MEMORY = "memory"
    CORTEX = "cortex"


# Who may announce each payload. The NATS server lets each service publish
# only under engram.events.<service>. (deploy/nats/engram.conf), so the
# subject proves the publisher; a payload on another's subject is refused.
PUBLISHER_OF = {"entry_stored": Publisher.MEMORY, "entries_forgotten": Publisher.MEMORY,
                "fact_written": Publisher.CORTEX, "outcome_recorded": Publisher.CORTEX}


# Entries per FlagEvidence call (cortex takes at most 100).
FLAG_BATCH = 100


def publisher_of(subject: str, events_subjects: str) -> str:
    """The service token of `engram.events.<service>.<name>` ("" if none)."""
    prefix = events_subjects.removesuffix(">")
    return subject[len(prefix):].split(".", 1)[0] if subject.startswith(prefix) else ""


def _ids(values: list[str]) -> list[uuid.UUID]:
    try:
        return [uuid.UUID(v) for v in values]
    except ValueError as exc:
        raise PoisonMessage(f"event carries a malformed entry id: {exc}") from exc


class EventIntake:
    def __init__(self, pool: asyncpg.Pool, consumer: str,
                 backends: Backends | None = None,
                 events_subjects: str = "engram.events.>") -> None:
        self.pool = pool
        self.events_subjects = events_subjects
        self.backends = backends
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
        kind = envelope.WhichOneof("payload") or ""
        expected = PUBLISHER_OF.get(kind)
        if expected and publisher_of(msg.subject, self.events_subjects) != expected:
            raise PoisonMessage(f"event {event_id}: {kind} comes from {expected} only, "
                                f"not on {msg.subject}")
        subject_id = {"entry_stored": envelope.entry_stored.entry_id,
                      "fact_written": envelope.fact_written.fact_id,
                      "outcome_recorded": envelope.outcome_recorded.outcome_id,
                      }.get(kind, "")
        occurred = envelope.occurred_at.ToDatetime(tzinfo=UTC) if envelope.HasField(
            "occurred_at") else None
        async with tenant_tx(self.pool, envelope.namespace) as conn:
            fresh = await repo.record_event(conn, envelope.namespace, self.consumer, event_id,
                                            envelope.type, subject_id, occurred)
            if fresh:  # applied once, in the same transaction as the ledger row
                await self._apply(conn, envelope, event_id)
        if kind == "entries_forgotten":
            await self._forget_facts(envelope)
        elif kind == "entry_stored":
            await self._flag_evidence(envelope)
        EVENTS_CONSUMED.labels("dreamer", self.consumer, "new" if fresh else "duplicate").inc()

    async def _forget_facts(self, envelope: events_pb2.EventEnvelope) -> None:
        """Facts resting on forgotten entries go too: after the commit (no
        remote call inside it) and on every delivery, so a failure here leaves
        the event unacked and its redelivery repeats the call, which forgets
        nothing twice."""
        if self.backends is None:
            return
        forgotten = envelope.entries_forgotten
        await self.backends.forget_sources(envelope.namespace, list(forgotten.entry_ids),
                                           f"memory entries forgotten: {forgotten.reason}")

    async def _flag_evidence(self, envelope: events_pb2.EventEnvelope) -> None:
        """Entries this one superseded or contradicts may be evidence of
        facts: cortex records the change (served as re_verify). After the
        commit and on every delivery, like _forget_facts; a repeat flags
        nothing more."""
        stored = envelope.entry_stored
        if self.backends is None:
            return
        for change, refs in ((EvidenceChange.SUPERSEDED, stored.superseded),
                             (EvidenceChange.CONTESTED, stored.contested)):
            _ids(list(refs))
            for start in range(0, len(refs), FLAG_BATCH):
                await self.backends.flag_evidence(envelope.namespace,
                                                  list(refs[start:start + FLAG_BATCH]),
                                                  change, stored.entry_id)

    async def _apply(self, conn: asyncpg.Connection, envelope: events_pb2.EventEnvelope,
                     event_id: uuid.UUID) -> None:
        """A stored entry waits for the next pass, unless it added nothing (a
        restatement); forgotten entries are never consolidated. A fact's
        entity is compared for near-duplicates, and an outcome has lessons
        merged, by the next pass."""
        if envelope.HasField("fact_written"):
            written = envelope.fact_written
            if not written.entity:
                raise PoisonMessage(f"fact event {event_id} names no entity")
            if not written.batch:  # a pass compares the entities it wrote itself
                await repo_passes.add_mark(conn, envelope.namespace, "entity",
                                           written.entity[:200], event_id)
        elif envelope.HasField("outcome_recorded"):
            await repo_passes.add_mark(conn, envelope.namespace, "lessons", "*", event_id)
        elif envelope.HasField("entry_stored"):
            stored = envelope.entry_stored
            if stored.finding != Finding.RESTATEMENT:
                [entry_id] = _ids([stored.entry_id])
                await repo_passes.add_pending(conn, envelope.namespace, entry_id, event_id)
        elif envelope.HasField("entries_forgotten"):
            forgotten = envelope.entries_forgotten
            await repo_passes.mark_forgotten(conn, _ids(list(forgotten.entry_ids)))
            await repo_passes.forget_proposal_sources(conn, list(forgotten.entry_ids))
