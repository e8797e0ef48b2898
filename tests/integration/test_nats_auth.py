"""The event bus admits only the services, each to its own subjects, over the
real embedded nats-server: no anonymous client, no forged events, no purge;
and the dreamer refuses an event that did not come on its publisher's subject."""

from __future__ import annotations

import uuid

import nats
import nats.errors
import nats.js.api
import pytest
from nats.errors import Error as NatsError
from nats.js.errors import NotFoundError

from engram.v1 import events_pb2
from engram_kit.settings import NatsSettings
from engram_runner.stack import Stack

from ..helpers import call, eventually, mcp_client, nats_client

STREAM = "ENGRAM_EVENTS"
DEAD_LETTERS = "ENGRAM_DEADLETTER"


async def _quiet(exc: Exception) -> None:
    """nats-py logs connection errors unless given a callback."""


async def _violation(errors: list[str], what: str) -> None:
    async def seen() -> bool:
        return any("permissions violation" in e and what in e for e in errors)
    await eventually(seen, 5, f"a permissions violation for {what}")


async def _absent(stack: Stack, stream: str, subject: str) -> None:
    admin = await nats_client(stack, "admin")
    try:
        with pytest.raises(NotFoundError):
            await admin.jetstream().get_last_msg(stream, subject)
    finally:
        await admin.close()


async def test_an_anonymous_client_cannot_connect(stack: Stack):
    with pytest.raises(NatsError, match="Authorization Violation"):
        await nats.connect(f"nats://127.0.0.1:{stack.topology.infra_ports['nats']}",
                           connect_timeout=2, allow_reconnect=False, max_reconnect_attempts=0,
                           error_cb=_quiet)


@pytest.mark.parametrize("user", ["cortex", "dreamer", "coordination"])
async def test_only_memory_publishes_memory_events(stack: Stack, user: str):
    subject = f"engram.events.memory.forged_{uuid.uuid4().hex[:8]}"
    envelope = events_pb2.EventEnvelope(event_id=str(uuid.uuid4()), namespace="default",
                                        type="memory.entries.forgotten")
    envelope.entries_forgotten.CopyFrom(events_pb2.EntriesForgotten(
        entry_ids=[str(uuid.uuid4())], reason="forged"))
    errors: list[str] = []
    nc = await nats_client(stack, user, errors)
    try:
        with pytest.raises(nats.errors.TimeoutError):
            await nc.jetstream().publish(subject, envelope.SerializeToString(), timeout=2)
        await _violation(errors, subject)
    finally:
        await nc.close()
    await _absent(stack, STREAM, subject)


@pytest.mark.parametrize("user", ["memory", "cortex", "dreamer", "coordination"])
async def test_no_service_can_purge_or_delete_the_streams(stack: Stack, agent_token: str,
                                                        user: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "memory_store", {"text": f"purge probe {uuid.uuid4().hex}"})
    admin = await nats_client(stack, "admin")
    try:
        async def published() -> bool:
            return (await admin.jetstream().stream_info(STREAM)).state.messages > 0
        await eventually(published, 30, "an event in the stream")
        before = (await admin.jetstream().stream_info(STREAM)).state
    finally:
        await admin.close()
    errors: list[str] = []
    nc = await nats_client(stack, user, errors)
    try:
        js = nc.jetstream(timeout=2)
        for attempt in (js.purge_stream(STREAM), js.delete_stream(STREAM),
                        js.delete_consumer(STREAM, "dreamer"),
                        js.update_stream(nats.js.api.StreamConfig(name=STREAM, max_msgs=1))):
            with pytest.raises(nats.errors.TimeoutError):
                await attempt
        for verb in ("purge", "delete", "consumer.delete", "update"):
            await _violation(errors, f"$js.api.{verb}" if verb.startswith("consumer")
                             else f"$js.api.stream.{verb}")
    finally:
        await nc.close()
    admin = await nats_client(stack, "admin")
    try:
        info = await admin.jetstream().stream_info(STREAM)
        assert info.state.first_seq == before.first_seq
        assert info.state.messages >= before.messages and info.config.max_msgs in (None, -1)
        assert "dreamer" in [c.name for c in await admin.jetstream().consumers_info(STREAM)]
    finally:
        await admin.close()


@pytest.mark.parametrize("user", ["memory", "cortex", "coordination"])
async def test_only_the_dreamer_reads_events(stack: Stack, user: str):
    """Nobody but the dreamer consumes events, and each client has its own
    inbox, so no one reads the dreamer's deliveries either."""
    errors: list[str] = []
    nc = await nats_client(stack, user, errors)
    try:
        for subject in ("engram.events.>", "_INBOX_dreamer.>", "_INBOX.>"):
            await nc.subscribe(subject)
            await nc.flush()
            await _violation(errors, f'subscription to "{subject.lower()}"')
        with pytest.raises(nats.errors.TimeoutError):
            await nc.jetstream(timeout=2).add_consumer(STREAM, nats.js.api.ConsumerConfig(
                durable_name=f"snoop-{user}", filter_subject="engram.events.>"))
    finally:
        await nc.close()


async def test_the_dreamer_refuses_a_memory_event_on_a_cortex_subject(stack: Stack):
    """Cortex may publish on its own subjects only; an entries_forgotten it
    sends there is dead-lettered, and the facts resting on the entry stay."""
    ns = f"forge-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        stored = await call(client, "memory_store", {"text": "forge-svc uses Redis."})

        async def pending() -> bool:
            return (await call(client, "dream", {"action": "status"}))["pending_entries"] == 1
        await eventually(pending, 30, "the stored entry pending for the dreamer")
        assert (await call(client, "dream", {"action": "run"}))["run"]["facts_written"] == 1
        envelope = events_pb2.EventEnvelope(event_id=str(uuid.uuid4()), namespace=ns,
                                            type="memory.entries.forgotten", principal="x")
        envelope.entries_forgotten.CopyFrom(events_pb2.EntriesForgotten(
            entry_ids=[stored["id"]], reason="forged by cortex"))
        payload = envelope.SerializeToString()
        nc = await nats_client(stack, "cortex")
        try:
            await nc.jetstream().publish("engram.events.cortex.entries_forgotten", payload)
        finally:
            await nc.close()
        admin = await nats_client(stack, "admin")
        try:
            async def dead_lettered() -> bool:
                try:
                    msg = await admin.jetstream().get_last_msg(
                        DEAD_LETTERS, "engram.deadletter.dreamer")
                except NotFoundError:
                    return False
                return msg.data == payload
            await eventually(dead_lettered, 30, "the forged event dead-lettered")
        finally:
            await admin.close()
        got = await call(client, "fact_get", {"entity": "forge-svc", "attribute": "uses"})
        assert [f["value"] for f in got["current"]] == ["Redis"]


async def test_the_event_streams_have_limits(stack: Stack):
    """engram up gives the stream its limits, also a stream made before them."""
    settings = NatsSettings()
    admin = await nats_client(stack, "admin")
    try:
        js = admin.jetstream()
        events = (await js.stream_info(STREAM)).config
        assert (events.max_age, events.max_bytes) == (settings.events_max_age_s,
                                                      settings.events_max_bytes)
        assert (events.max_age or 0) > 0 and (events.max_bytes or 0) > 0
        events.max_age, events.max_bytes = 0, -1  # as streams were made before the limits
        await js.update_stream(events)
        stack.nats.apply_streams(stack.secrets["ENGRAM_NATS_ADMIN_PASSWORD"])
        events = (await js.stream_info(STREAM)).config
        assert (events.max_age, events.max_bytes) == (settings.events_max_age_s,
                                                      settings.events_max_bytes)
        assert events.subjects == [settings.events_subjects]
    finally:
        await admin.close()
