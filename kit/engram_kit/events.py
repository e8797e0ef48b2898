"""NATS JetStream helpers: a self-healing connection, the event stream,
publishing with Nats-Msg-Id, and a durable pull-consumer loop that acks only
after the handler's transaction has committed."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import nats
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api
from nats.js.errors import NotFoundError

from .db import connection_failure
from .metrics import CONSUMER_LAG, DEAD_LETTERS, EVENTS_CONSUMED, EVENTS_REDELIVERED
from .runtime import sleep_or_stop
from .settings import NatsSettings

log = logging.getLogger(__name__)


class NatsLink:
    """Keeps one NATS connection alive; callers see `js` only while connected.

    The initial connect is retried in the background, so a service starts
    (and accepts writes) while NATS is down.
    """

    def __init__(self, settings: NatsSettings, name: str) -> None:
        self.settings = settings
        self.name = name
        self.nc: NatsClient | None = None
        self.js: JetStreamContext | None = None
        self._stream_ready = False

    @property
    def connected(self) -> bool:
        return self.nc is not None and self.nc.is_connected

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set() and self.nc is None:
            try:
                self.nc = await nats.connect(
                    self.settings.nats_url, name=self.name, allow_reconnect=True,
                    max_reconnect_attempts=-1, reconnect_time_wait=0.5, connect_timeout=2,
                    **connect_options(self.settings),
                )
                self.js = self.nc.jetstream(timeout=5)
                log.info("nats connected")
            except Exception as exc:  # NATS down at start: keep trying, report via readiness
                log.warning("nats connect failed, retrying", extra={"fields": {"error": repr(exc)}})
                await sleep_or_stop(stop, 1.0)
        await stop.wait()
        if self.nc is not None:
            await self.nc.drain()

    async def ensure_stream(self) -> JetStreamContext:
        if self.js is None or not self.connected:
            raise ConnectionError("not connected to NATS")
        if not self._stream_ready:
            await ensure_stream(self.js, events_stream_config(self.settings))
            self._stream_ready = True
        return self.js


def connect_options(settings: NatsSettings) -> dict[str, str]:
    """The service's NATS user, with a reply inbox of its own: the server lets
    each user subscribe to `_INBOX_<user>.>` only, so no client reads another's
    JetStream replies or deliveries."""
    if not settings.nats_user:
        return {}
    return {"user": settings.nats_user, "password": settings.nats_password.get_secret_value(),
            "inbox_prefix": f"_INBOX_{settings.nats_user}"}


def events_stream_config(settings: NatsSettings) -> api.StreamConfig:
    return api.StreamConfig(
        name=settings.events_stream, subjects=[settings.events_subjects],
        duplicate_window=settings.events_duplicate_window_s, storage=api.StorageType.FILE,
        max_age=settings.events_max_age_s, max_bytes=settings.events_max_bytes,
        num_replicas=settings.events_replicas)


def deadletter_stream_config(settings: NatsSettings) -> api.StreamConfig:
    return api.StreamConfig(
        name=DEAD_LETTER_STREAM, subjects=["engram.deadletter.>"], storage=api.StorageType.FILE,
        max_age=settings.deadletter_max_age_s, max_bytes=settings.deadletter_max_bytes,
        num_replicas=settings.events_replicas)


def _stream_name(config: api.StreamConfig) -> str:
    if not config.name:  # nats-py types it optional; every config here names its stream
        raise ValueError("a stream config needs a name")
    return config.name


def _limits_differ(have: api.StreamConfig, want: api.StreamConfig) -> bool:
    return (abs((have.max_age or 0) - (want.max_age or 0)) > 1e-3
            or (have.max_bytes or -1) != (want.max_bytes or -1))


async def ensure_stream(js: JetStreamContext, config: api.StreamConfig) -> None:
    """Create the stream when missing. A service may not update a stream (only
    the admin user may, as `engram up` does), so changed limits are reported."""
    try:
        info = await js.stream_info(_stream_name(config))
    except NotFoundError:
        await js.add_stream(config)
        return
    if _limits_differ(info.config, config):
        log.warning("stream limits differ from the settings; the admin user applies them",
                    extra={"fields": {"stream": config.name}})


async def apply_streams(js: JetStreamContext, settings: NatsSettings) -> None:
    """As the admin user: create the streams, or bring their limits to the settings."""
    for config in (events_stream_config(settings), deadletter_stream_config(settings)):
        try:
            info = await js.stream_info(_stream_name(config))
        except NotFoundError:
            await js.add_stream(config)
            continue
        if _limits_differ(info.config, config):
            current = info.config
            current.max_age, current.max_bytes = config.max_age, config.max_bytes
            await js.update_stream(current)


async def publish_event(js: JetStreamContext, subject: str, payload: bytes, event_id: str,
                        stream: str) -> bool:
    """Publish once per event id; returns True when the server saw a duplicate."""
    ack = await js.publish(subject, payload, timeout=3, stream=stream,
                           headers={"Nats-Msg-Id": event_id})
    return bool(ack.duplicate)


@dataclass(frozen=True)
class ConsumerSpec:
    durable: str
    filter_subject: str
    ack_wait_s: float = 30.0
    max_deliver: int = 20
    batch: int = 32
    fetch_timeout_s: float = 1.0
    # Where a message goes when it can never be handled (poison) or fails on
    # its last delivery; kept in the ENGRAM_DEADLETTER stream. Empty: dropped.
    dead_letter_subject: str = ""

DEAD_LETTER_STREAM = "ENGRAM_DEADLETTER"
# A message that failed because a dependency was down comes back after this.
OUTAGE_NAK_DELAY_S = 5.0


Handler = Callable[[Msg], Awaitable[None]]


class PoisonMessage(Exception):
    """Raised by a handler for a message that can never be processed: it is
    terminated (no redelivery) instead of nak'ed."""


async def _bind(link: NatsLink, spec: ConsumerSpec) -> JetStreamContext.PullSubscription:
    js = await link.ensure_stream()
    config = api.ConsumerConfig(
        durable_name=spec.durable, ack_policy=api.AckPolicy.EXPLICIT,
        filter_subject=spec.filter_subject, ack_wait=spec.ack_wait_s,
        max_deliver=spec.max_deliver, deliver_policy=api.DeliverPolicy.ALL,
    )
    # add_consumer is create-or-update, so a changed config reaches the server.
    await js.add_consumer(link.settings.events_stream, config)
    return await js.pull_subscribe_bind(spec.durable, stream=link.settings.events_stream)


async def run_consumer(link: NatsLink, spec: ConsumerSpec, handle: Handler,
                       stop: asyncio.Event, on_bound: Callable[[bool], None] | None = None,
                       gate: Callable[[], bool] | None = None) -> None:
    """Fetch, handle, ack after commit; nak with backoff when handling fails.
    `gate` (e.g. "the database answers") must hold before a fetch: every
    delivery counts toward max_deliver, so messages are not taken while the
    handler could only fail for an outage."""
    sub = None
    while not stop.is_set():
        if gate is not None and not gate():
            await sleep_or_stop(stop, 1.0)
            continue
        if sub is None:
            try:
                sub = await _bind(link, spec)
                if on_bound:
                    on_bound(True)
            except Exception as exc:  # NATS not there yet: retry; readiness reports it
                log.debug("consumer bind failed: %r", exc)
                if on_bound:
                    on_bound(False)
                await sleep_or_stop(stop, 1.0)
                continue
        try:
            msgs = await sub.fetch(spec.batch, timeout=spec.fetch_timeout_s)
        except TimeoutError:
            continue
        except Exception as exc:  # connection lost mid-fetch: rebind after a pause
            log.warning("fetch failed", extra={"fields": {"error": repr(exc)}})
            sub = None
            if on_bound:
                on_bound(False)
            await sleep_or_stop(stop, 1.0)
            continue
        outage = False
        for msg in msgs:
            if outage:  # the rest of the batch comes back after the outage
                await msg.nak(delay=OUTAGE_NAK_DELAY_S)
                continue
            outage = await _settle(msg, spec, handle, link)
        if outage:
            await sleep_or_stop(stop, 1.0)
        await _report_lag(sub, spec, link.name)


_lag_checked: dict[str, float] = {}


async def _report_lag(sub: JetStreamContext.PullSubscription, spec: ConsumerSpec,
                      service: str) -> None:
    """Consumer lag (messages not yet delivered) as a gauge, every 5 s."""
    now = time.monotonic()
    if now - _lag_checked.get(spec.durable, 0.0) < 5.0:
        return
    _lag_checked[spec.durable] = now
    try:
        info = await sub.consumer_info()
    except Exception as exc:  # the gauge keeps its last value; the fetch loop reconnects
        log.debug("consumer info unavailable", extra={"fields": {"error": repr(exc)}})
        return
    CONSUMER_LAG.labels(service, spec.durable).set(info.num_pending or 0)


async def dead_letter(link: NatsLink, spec: ConsumerSpec, msg: Msg, reason: str) -> None:
    """Keep the message for an operator in the dead-letter stream, then stop
    its redelivery."""
    if spec.dead_letter_subject and link.js is not None:
        try:
            await ensure_stream(link.js, deadletter_stream_config(link.settings))
            await link.js.publish(spec.dead_letter_subject, msg.data, timeout=3, headers={
                "Engram-Original-Subject": msg.subject, "Engram-Reason": reason[:500]})
        except Exception as exc:  # the log line below still records it
            log.error("dead-letter publish failed", extra={"fields": {"error": repr(exc)}})
    DEAD_LETTERS.labels(link.name, spec.durable).inc()
    log.error("message dead-lettered", extra={"fields": {"reason": reason,
                                                         "subject": msg.subject}})
    await msg.term()


async def _settle(msg: Msg, spec: ConsumerSpec, handle: Handler, link: NatsLink) -> bool:
    """Handle one message; True when it failed for a dependency outage."""
    delivered = msg.metadata.num_delivered if msg.metadata else 1
    if delivered > 1:
        EVENTS_REDELIVERED.labels(link.name, spec.durable).inc()
    try:
        await handle(msg)
    except PoisonMessage as exc:
        EVENTS_CONSUMED.labels(link.name, spec.durable, "term").inc()
        await dead_letter(link, spec, msg, f"poison: {exc}")
        return False
    except Exception as exc:
        if connection_failure(exc) and delivered < spec.max_deliver:
            log.warning("event handling waits for a dependency",
                        extra={"fields": {"error": repr(exc), "delivered": delivered}})
            EVENTS_CONSUMED.labels(link.name, spec.durable, "nak").inc()
            await msg.nak(delay=OUTAGE_NAK_DELAY_S)
            return True
        log.exception("event handling failed", extra={"fields": {"delivered": delivered}})
        EVENTS_CONSUMED.labels(link.name, spec.durable, "nak").inc()
        if delivered >= spec.max_deliver:
            await dead_letter(link, spec, msg, f"failed {delivered} times: {exc!r}")
            return False
        await msg.nak(delay=min(30.0, 0.5 * 2 ** min(delivered, 6)))
        return False
    await msg.ack_sync()
    EVENTS_CONSUMED.labels(link.name, spec.durable, "ack").inc()
    return False
