"""Write events flow memory/cortex -> outbox -> JetStream -> dreamer, exactly
once, across a dreamer outage and a NATS outage."""

from __future__ import annotations

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client

RECORDED = ("SELECT count(*) FROM dreamer.processed_events WHERE subject_id = ANY($1::text[])")
ROWS_PER_EVENT = ("SELECT coalesce(max(c), 0) FROM (SELECT count(*) AS c FROM "
                  "dreamer.processed_events WHERE subject_id = ANY($1::text[]) "
                  "GROUP BY subject_id) t")
PENDING = "SELECT count(*) FROM memory.outbox WHERE published_at IS NULL"
CORTEX_PENDING = "SELECT count(*) FROM cortex.outbox WHERE published_at IS NULL"


async def _store_many(stack: Stack, token: str, prefix: str, n: int) -> list[str]:
    ids = []
    async with mcp_client(stack.mcp_url, token) as client:
        for i in range(n):
            reply = await call(client, "memory_store",
                               {"text": f"{prefix} observation number {i}: value {i * 7}"})
            assert reply["finding"] in ("new", "paraphrase")
            ids.append(reply["id"])
    return ids


async def test_events_wait_for_a_stopped_dreamer(stack: Stack, agent_token: str,
                                                 admin_dsn: str):
    stack.stop_service("dreamer")
    try:
        ids = await _store_many(stack, agent_token, "dreamer-outage", 20)
        assert await admin_fetchval(admin_dsn, RECORDED, ids) == 0
    finally:
        stack.start_service("dreamer")
        stack.wait_ready(["dreamer"], 60)

    async def all_recorded() -> bool:
        return await admin_fetchval(admin_dsn, RECORDED, ids) == 20

    await eventually(all_recorded, 60, "20 events recorded by the dreamer")
    assert await admin_fetchval(admin_dsn, ROWS_PER_EVENT, ids) == 1
    redelivered = await admin_fetchval(
        admin_dsn, "SELECT coalesce(sum(redeliveries), 0) FROM dreamer.processed_events "
        "WHERE subject_id = ANY($1::text[])", ids)
    assert redelivered == 0


async def test_outbox_holds_events_while_nats_is_down(stack: Stack, agent_token: str,
                                                      admin_dsn: str):
    stack.nats.stop()
    try:
        ids = await _store_many(stack, agent_token, "nats-outage", 5)
        async with mcp_client(stack.mcp_url, agent_token) as client:
            fact = await call(client, "fact_set", {"entity": "nats-outage-svc",
                                                   "attribute": "port", "value": "7443"})
        ids.append(fact["fact"]["id"])
        assert await admin_fetchval(admin_dsn, PENDING) >= 5
        assert await admin_fetchval(admin_dsn, CORTEX_PENDING) >= 1
        assert await admin_fetchval(admin_dsn, RECORDED, ids) == 0
    finally:
        stack.nats.start()

    async def drained() -> bool:
        return await admin_fetchval(admin_dsn, PENDING) == 0 and \
            await admin_fetchval(admin_dsn, CORTEX_PENDING) == 0

    async def recorded() -> bool:
        return await admin_fetchval(admin_dsn, RECORDED, ids) == 6

    await eventually(drained, 60, "both outboxes drained after NATS came back")
    await eventually(recorded, 60, "5 memory and 1 cortex event recorded after NATS came back")
    assert await admin_fetchval(admin_dsn, ROWS_PER_EVENT, ids) == 1


async def test_dreamer_health_names_its_extractor(stack: Stack):
    import json
    import urllib.request

    url = stack.topology.services["dreamer"].ready_url.replace("/readyz", "/health")
    with urllib.request.urlopen(url, timeout=5) as resp:
        health = json.loads(resp.read())
    assert health["extractor"] == "rules" and health["extractor_model"] == ""
