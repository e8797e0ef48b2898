"""Event payloads the cortex writes to its outbox (contracts in events.proto),
in the transaction of the write they announce."""

from __future__ import annotations

import uuid

import asyncpg

from engram.v1 import events_pb2
from engram_kit.context import CallerContext
from engram_kit.outbox import enqueue, new_envelope

FACT_WRITTEN_SUBJECT = "engram.events.cortex.fact_written"
OUTCOME_RECORDED_SUBJECT = "engram.events.cortex.outcome_recorded"


async def fact_written(conn: asyncpg.Connection, ctx: CallerContext, fact_id: uuid.UUID,
                       entity: str, attribute: str, action: str, batch: str) -> uuid.UUID:
    event_id, envelope = new_envelope(ctx, "cortex.fact.written")
    envelope.fact_written.CopyFrom(events_pb2.FactWritten(
        fact_id=str(fact_id), entity=entity, attribute=attribute, action=action, batch=batch))
    await enqueue(conn, event_id, ctx.namespace, FACT_WRITTEN_SUBJECT,
                  envelope.SerializeToString())
    return event_id


async def outcome_recorded(conn: asyncpg.Connection, ctx: CallerContext,
                           outcome_id: uuid.UUID, outcome: str,
                           lesson_id: uuid.UUID | None) -> uuid.UUID:
    event_id, envelope = new_envelope(ctx, "cortex.outcome.recorded")
    envelope.outcome_recorded.CopyFrom(events_pb2.OutcomeRecorded(
        outcome_id=str(outcome_id), outcome=outcome, lesson_id=str(lesson_id or "")))
    await enqueue(conn, event_id, ctx.namespace, OUTCOME_RECORDED_SUBJECT,
                  envelope.SerializeToString())
    return event_id
