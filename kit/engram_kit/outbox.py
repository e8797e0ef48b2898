"""Transactional outbox relay.

A service writes event rows to `<schema>.outbox` in the same transaction as
its change; this relay publishes them to JetStream with Nats-Msg-Id = event
id and marks them published. While NATS is down, rows wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from datetime import UTC, datetime

import asyncpg
from google.protobuf.timestamp_pb2 import Timestamp

from engram.v1 import events_pb2

from .context import CallerContext
from .db import duty_tx, fetchrow_one
from .events import NatsLink, publish_event
from .metrics import OUTBOX_LAG, OUTBOX_PENDING, OUTBOX_PUBLISHED
from .runtime import woken_or_stop

log = logging.getLogger(__name__)


def new_envelope(ctx: CallerContext, event_type: str) -> tuple[uuid.UUID, events_pb2.EventEnvelope]:
    """An event's envelope (events.proto); the caller sets its payload."""
    event_id = uuid.uuid4()
    occurred = Timestamp()
    occurred.FromDatetime(datetime.now(UTC))
    return event_id, events_pb2.EventEnvelope(
        event_id=str(event_id), type=event_type, namespace=ctx.namespace,
        principal=ctx.principal, occurred_at=occurred)


async def enqueue(conn: asyncpg.Connection, event_id: uuid.UUID, namespace: str,
                  subject: str, payload: bytes) -> None:
    """Write an event to the `outbox` of the schema on the search path, in the
    caller's transaction (so it is published if and only if that commits)."""
    await conn.execute(
        "INSERT INTO outbox (id, namespace, subject, payload) VALUES ($1, $2, $3, $4)",
        event_id, namespace, subject, payload)


class OutboxRelay:
    def __init__(self, pool: asyncpg.Pool, link: NatsLink, schema: str, service: str,
                 batch: int = 100, idle_s: float = 0.5) -> None:
        self.pool = pool
        self.link = link
        self.service = service
        self.batch = batch
        self.idle_s = idle_s
        self._wake = asyncio.Event()
        self._gauges_due = 0.0  # monotonic time of the next gauge refresh
        self._select = (
            f'SELECT id, subject, payload FROM "{schema}".outbox WHERE published_at IS NULL '
            "ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED"
        )
        self._mark = f'UPDATE "{schema}".outbox SET published_at = now() WHERE id = ANY($1::uuid[])'
        self._stats = (
            f'SELECT count(*) AS n, extract(epoch FROM now() - min(created_at)) AS lag '
            f'FROM "{schema}".outbox WHERE published_at IS NULL'
        )

    def notify(self) -> None:
        """Called after a commit that wrote outbox rows: publish promptly."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        failures = 0
        while not stop.is_set():
            published = 0
            try:
                if self.link.connected:
                    published = await self.publish_pending()
                # At most once per idle period: the gauges cost a transaction,
                # and a pass runs after every write that enqueues an event.
                if time.monotonic() >= self._gauges_due:
                    await self._update_gauges()
                failures = 0
            except Exception as exc:  # keep relaying; rows stay pending and are retried
                if failures == 0:
                    log.warning("outbox relay pass failed",
                                extra={"fields": {"error": repr(exc)}})
                failures += 1
            if published >= self.batch:
                continue
            # While the database or NATS is down, passes back off to 5 s.
            idle = min(5.0, self.idle_s * 2 ** min(failures, 4))
            self._wake.clear()
            await woken_or_stop(self._wake, stop, idle)

    async def publish_pending(self) -> int:
        js = await self.link.ensure_stream()
        stream = self.link.settings.events_stream
        done: list = []
        async with duty_tx(self.pool, "outbox_relay") as conn:
            rows = await conn.fetch(self._select, self.batch)
            try:
                for row in rows:
                    await publish_event(js, row["subject"], bytes(row["payload"]),
                                        str(row["id"]), stream)
                    done.append(row["id"])
            finally:
                # Mark what reached JetStream even if a later publish failed;
                # a re-publish would be deduplicated by Nats-Msg-Id anyway.
                if done:
                    await conn.execute(self._mark, done)
        OUTBOX_PUBLISHED.labels(self.service).inc(len(done))
        return len(done)

    async def _update_gauges(self) -> None:
        self._gauges_due = time.monotonic() + self.idle_s
        async with duty_tx(self.pool, "outbox_relay") as conn:
            row = await fetchrow_one(conn, self._stats)
        OUTBOX_PENDING.labels(self.service).set(row["n"])
        OUTBOX_LAG.labels(self.service).set(float(row["lag"] or 0.0))
