"""The board cleans up after itself: with an injected clock (no sleeping),
acknowledged mail loses its body after the TTL (row, digest and audit kept),
expired grants nobody waits for are freed, and agents unseen for 30 days are
retired; every sweep is audited and counted, and the service runs it on a
timer."""

from __future__ import annotations

import uuid
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from engram_coordination import repo_sweep
from engram_coordination.settings import CoordinationSettings
from engram_coordination.sweep import SWEPT, BoardSweep
from engram_kit import audit
from engram_kit.db import create_pool, duty_tx
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client
from ..procs import service_process

BODIES = ("SELECT count(*) FROM coordination.messages WHERE namespace = $1"
          " AND body IS NOT NULL")
AUDITED = ("SELECT detail FROM coordination.audit WHERE namespace = $1 AND action = $2"
           " ORDER BY id DESC LIMIT 1")
AGENTS = "SELECT count(*) FROM coordination.agents WHERE namespace = $1"


def settings(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> CoordinationSettings:
    """The coordination service's own settings (its role, its audit key)."""
    for key, value in stack.topology.services["coordination"].env.items():
        monkeypatch.setenv(key, value)
    return CoordinationSettings()  # pyright: ignore[reportCallIssue]


def swept(kind: str) -> float:
    return SWEPT.labels(kind=kind)._value.get()


async def test_sweep_expires_bodies_frees_leases_and_retires_agents(
        stack: Stack, admin_dsn: str, monkeypatch: pytest.MonkeyPatch):
    ns = f"sweep-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    async with AsyncExitStack() as es:
        a = await es.enter_async_context(mcp_client(stack.mcp_url, token, session="sa"))
        b = await es.enter_async_context(mcp_client(stack.mcp_url, token, session="sb"))
        b_id = (await call(b, "board_agents", {"action": "update", "status": "x"}))["agent"]["id"]
        await call(a, "board_message", {"action": "send", "to": b_id, "text": "acked soon"})
        await call(a, "board_message", {"action": "send", "to": b_id, "text": "kept pending"})
        inbox = await call(b, "board_message", {"action": "receive"})
        first = next(m["id"] for m in inbox["messages"] if m["text"] == "acked soon")
        await call(b, "board_message", {"action": "ack", "ids": [first]})
        await call(a, "board_lease", {"action": "claim", "name": "job:1", "ttl_seconds": 60})

    s = settings(stack, monkeypatch)
    audit.use_key(s.audit_hmac_key.get_secret_value())
    pool = await create_pool(s.database_url.get_secret_value(), schema="coordination",
                             vector=False)
    real = datetime.now(UTC)
    try:
        # Now: nothing of this namespace is due, and the periodic sweep agrees.
        fresh = await BoardSweep(pool, s, now=lambda: real).sweep_namespace(ns)
        assert (fresh.mail_bodies, fresh.agents, fresh.leases) == (0, 0, 0)
        assert await admin_fetchval(admin_dsn, BODIES, ns) == 2

        week = real + timedelta(days=7, minutes=1)
        async with duty_tx(pool, "board_sweep") as conn:
            due = await repo_sweep.due_namespaces(
                conn, week - timedelta(days=7), week - timedelta(days=30), week, 10_000)
        assert ns in due, "the duty finds the namespace across RLS"

        before = swept("mail_body")
        later = await BoardSweep(pool, s, now=lambda: week).sweep_namespace(ns)
        assert (later.mail_bodies, later.agents, later.leases) == (1, 0, 1)
        assert swept("mail_body") == before + 1
        assert await admin_fetchval(admin_dsn, BODIES, ns) == 1, "pending mail keeps its body"
        detail = await admin_fetchval(admin_dsn, AUDITED, ns, "mail.body_expire")
        assert first in detail and "body_hmacs" in detail and "acked soon" not in detail
        assert "job:1" in await admin_fetchval(admin_dsn, AUDITED, ns, "lease.expire")
        assert await admin_fetchval(admin_dsn, AGENTS, ns) == 2

        month = real + timedelta(days=30, minutes=1)
        retired = await BoardSweep(pool, s, now=lambda: month).sweep_namespace(ns)
        assert retired.agents == 2
        assert await admin_fetchval(admin_dsn, AGENTS, ns) == 0
        assert b_id in await admin_fetchval(admin_dsn, AUDITED, ns, "agent.retire")
    finally:
        await pool.close()

    metrics = stack.topology.services["coordination"].ready_url.rsplit("/", 1)[0] + "/metrics"
    names = {f.name for f in text_string_to_metric_families(httpx.get(metrics, timeout=5).text)}
    assert {"engram_board_swept", "engram_board_sweeps"} <= names


def metric(port: int, name: str, **labels: str) -> float:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    return sum(s.value for family in text_string_to_metric_families(text)
               for s in family.samples
               if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


async def test_the_service_sweeps_periodically(stack: Stack, admin_dsn: str, tmp_path: Path):
    ns = f"tick-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    async with AsyncExitStack() as es:
        a = await es.enter_async_context(mcp_client(stack.mcp_url, token, session="sa"))
        b = await es.enter_async_context(mcp_client(stack.mcp_url, token, session="sb"))
        b_id = (await call(b, "board_agents", {"action": "update", "status": "x"}))["agent"]["id"]
        sent = await call(a, "board_message", {"action": "send", "to": b_id, "text": "old"})
        mid = sent["receipts"][0]["message_id"]
        await call(b, "board_message", {"action": "ack", "ids": [mid]})
    await admin_fetchval(admin_dsn, "UPDATE coordination.messages SET acked_at = acked_at"
                         " - interval '2 minutes' WHERE namespace = $1", ns)
    overrides = {"ENGRAM_BOARD_SWEEP_INTERVAL_S": "0.2", "ENGRAM_MAIL_BODY_TTL_S": "60"}
    with service_process(stack, "coordination", overrides, tmp_path) as svc:
        async def expired() -> bool:
            return await admin_fetchval(admin_dsn, BODIES, ns) == 0
        await eventually(expired, 30, "the periodic sweep expires the acked body")
        assert mid in await admin_fetchval(admin_dsn, AUDITED, ns, "mail.body_expire")
        assert metric(svc["http"], "engram_board_swept_total", kind="mail_body") >= 1
        assert metric(svc["http"], "engram_board_sweeps_total") >= 1
