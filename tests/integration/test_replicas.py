"""Two replicas of every stateless service (one embedder), as
`engram up --replicas` runs them: load spreads over the replicas, killing
one replica of each loses no acknowledged write, the dreamer applies each
event once and runs one pass at a time per namespace, and leases stay
exclusive with rising fencing tokens."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import asyncpg
import httpx
import pytest

from engram_kit import locks
from engram_runner.stack import Stack
from engram_runner.supervisor import Supervisor

from ..helpers import call, eventually, mcp_client, result_text
from ..procs import dead_services
from ..replica_tools import alternating_client, counter_sum, metrics_text, rpc_calls
from ..stacks import Variant, offset, running
from .test_console_signout import csrf_in, signed_in

OFFSET = offset(Variant.REPLICAS)
SPEC = "gateway=2,memory=2,cortex=2,dreamer=2,coordination=2,embedder=1"
REPLICATED = ("gateway", "memory", "cortex", "dreamer", "coordination")
# The documented client retry (docs/reliability.md, "The load"): a call that
# ends in a retryable error, a dropped connection or no answer is tried again,
# up to 3 attempts in all, on a new session when the old one was dropped.
ATTEMPTS = 3


@pytest.fixture(scope="module")
def rstack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir: Path = tmp_path_factory.mktemp("replicas")
    with running(Variant.REPLICAS, data_dir, replicas=SPEC) as s:
        yield s


@pytest.fixture(scope="module")
def token(rstack: Stack) -> str:
    assert rstack.first_token
    return rstack.first_token


class RetryingAgent:
    """One agent as a careful client runs it: the documented retry, each
    attempt on a client of its own (a dropped connection ends an SDK
    client's session; the retry opens a new one)."""

    def __init__(self, stack: Stack, token: str, session: str = "") -> None:
        self.stack, self.token, self.session = stack, token, session

    async def close(self) -> None:
        """Nothing is held between calls."""

    async def _attempt(self, tool: str, args: dict[str, Any]) -> tuple[bool, str, Any]:
        async with alternating_client(self.stack.gateway_urls, self.token,
                                      self.session) as client:
            with anyio.fail_after(20):
                result = await client.call_tool(tool, args)
        return result.is_error, result_text(result), result

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        last = ""
        for _ in range(ATTEMPTS):
            try:
                is_error, text, result = await self._attempt(tool, args)
            except Exception as exc:  # dropped connection, no answer
                last = repr(exc)
                continue
            if not is_error:
                return _reply(result, text)
            last = text
            if "retry" not in text.lower():
                break
            await asyncio.sleep(0.5)
        raise AssertionError(f"{tool} failed after the documented retry: {last}")


def _reply(result: Any, text: str) -> dict[str, Any]:
    return result.structured_content or json.loads(text)


async def _store_load(agent: RetryingAgent, tag: str, n: int) -> list[str]:
    ids = []
    for i in range(n):
        reply = await agent.call("memory_store", {
            "text": f"replica load {tag} item {i}: service {tag}-{i} listens on port "
                    f"{9000 + i}, build {uuid.uuid4().hex}",
            "tags": ["replicas"], "request_id": f"{tag}-{i}"})
        ids.append(reply["id"])
        await agent.call("memory_search", {"query": f"service {tag}-{i}", "top_k": 3})
        await agent.call("fact_set", {"entity": f"svc-{tag}-{i}", "attribute": "port",
                                      "value": str(9000 + i)})
        await agent.call("board_lease", {"action": "list"})
    return ids


async def test_one_mcp_client_across_gateway_replicas(rstack: Stack, token: str):
    """The official client through a per-request round robin over both
    gateways, in the current protocol (no session) and handshake-era (an
    Mcp-Session-Id one gateway minted, sent to the other): calls and
    listing work either way (gateway replicas serve handshake-era clients
    statelessly)."""
    assert len(rstack.gateway_urls) == 2
    for mode in ("auto", "legacy"):
        async with alternating_client(rstack.gateway_urls, token, mode=mode) as client:
            for i in range(4):
                stored = await call(client, "memory_store",
                                    {"text": f"session probe {mode} {i} {uuid.uuid4().hex}"})
                assert stored["id"]
            tools = await client.list_tools()
            assert any(t.name == "memory_search" for t in tools.tools)


async def test_load_spreads_over_every_replica(rstack: Stack, token: str):
    before = {n: rpc_calls(rstack, n) for n in rstack.instances if not n.startswith(
        ("gateway", "embedder"))}
    agents = [RetryingAgent(rstack, token, f"spread-{i}") for i in range(3)]
    try:
        await asyncio.gather(*[_store_load(a, f"spread{i}", 8) for i, a in enumerate(agents)])
    finally:
        for a in agents:
            await a.close()
    for service in ("memory", "cortex", "coordination"):
        for name in rstack.replica_names(service):
            assert rpc_calls(rstack, name) - before[name] > 0, f"{name} served no call"
    for name in rstack.replica_names("gateway"):
        calls = counter_sum(metrics_text(rstack, name), "engram_gateway_tool_calls_total")
        assert calls > 0, f"{name} served no tool call"

    async def both_dreamers_consumed() -> bool:
        return all(counter_sum(metrics_text(rstack, n), "engram_events_consumed_total",
                               consumer="dreamer") > 0 for n in rstack.replica_names("dreamer"))

    await eventually(both_dreamers_consumed, 60, "events consumed by both dreamer replicas")


async def test_dream_passes_one_at_a_time_per_namespace_across_replicas(rstack: Stack,
                                                                        token: str):
    """The pass lock lives in Postgres: while it is held, a pass asked of
    either dreamer replica is refused; once free, a pass runs."""
    agent = RetryingAgent(rstack, token, "dream-lock")
    conn = await asyncpg.connect(rstack.postgres.admin_dsn)
    try:
        await conn.execute(f"SELECT pg_advisory_lock({locks.key_sql('$1::text')})",
                           "dream/default")
        before = {n: counter_sum(metrics_text(rstack, n), "engram_rpc_requests_total",
                                 method="Run") for n in rstack.replica_names("dreamer")}
        for _ in range(4):
            async with alternating_client(rstack.gateway_urls, token) as client:
                refused = await client.call_tool("dream", {"action": "run"})
            assert refused.is_error and "already running" in result_text(refused)
        after = {n: counter_sum(metrics_text(rstack, n), "engram_rpc_requests_total",
                                method="Run") for n in rstack.replica_names("dreamer")}
        assert all(after[n] > before[n] for n in after), (before, after)
        await locks.session_unlock(conn, "dream/default")
        ran = await agent.call("dream", {"action": "run"})
        assert ran.get("run_id") or ran.get("run"), ran
    finally:
        await agent.close()
        await conn.close()


async def test_leases_exclusive_with_rising_tokens_across_coordination_replicas(
        rstack: Stack, token: str):
    """Agents race for one lease, round after round, their claims spread over
    both coordination replicas: one holder per round, each grant's fencing
    token above the last."""
    lease = f"deploy:{uuid.uuid4().hex[:6]}"
    agents = [RetryingAgent(rstack, token, f"racer-{i}") for i in range(4)]
    before = {n: counter_sum(metrics_text(rstack, n), "engram_rpc_requests_total",
                             method="ClaimLease") for n in rstack.replica_names("coordination")}
    last = 0
    try:
        for _ in range(6):
            replies = await asyncio.gather(*[a.call("board_lease", {
                "action": "claim", "name": lease, "ttl_seconds": 60, "queue": False})
                for a in agents])
            granted = [(a, r) for a, r in zip(agents, replies, strict=True) if r["granted"]]
            assert len(granted) == 1, replies
            holder, reply = granted[0]
            assert reply["fencing_token"] > last, (reply, last)
            last = reply["fencing_token"]
            await holder.call("board_lease", {"action": "release", "name": lease})
    finally:
        for a in agents:
            await a.close()
    for name in rstack.replica_names("coordination"):
        claims = counter_sum(metrics_text(rstack, name), "engram_rpc_requests_total",
                             method="ClaimLease")
        assert claims > before[name], f"{name} served no claim"


async def test_toolset_tier_is_seen_by_every_gateway_replica(rstack: Stack):
    """A principal's toolset tier set through one gateway holds on the other
    (it lives in coordination, not in a gateway process)."""
    token = rstack.principals.create(f"tiers-{uuid.uuid4().hex[:6]}", "agent", ["default"])
    first, second = rstack.gateway_urls
    async with mcp_client(first, token) as client:
        assert (await call(client, "toolset", {"tier": "minimal"}))["tier"] == "minimal"
    async with mcp_client(second, token) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert listed == {"memory_store", "memory_search", "briefing", "toolset"}
        refused = await client.call_tool("fact_get", {"entity": "x", "attribute": "y"})
        assert refused.is_error and "not in your toolset 'minimal'" in result_text(refused)
        assert (await call(client, "toolset", {"action": "expand"}))["tier"] == "core"
    async with mcp_client(first, token) as client:
        assert (await call(client, "toolset", {}))["tier"] == "core"


async def test_a_console_sign_out_holds_on_every_gateway_replica(rstack: Stack):
    """Signed in through one gateway, the cookie works on the other; signed
    out through the first, a copy of it is refused by both (the generation
    lives in the shared token file, not in a gateway process)."""
    ns = f"so-{uuid.uuid4().hex[:6]}"
    token = rstack.principals.create(f"rev-{ns}", "reviewer", [ns])
    first, second = (u.removesuffix("/mcp") for u in rstack.gateway_urls)
    async with httpx.AsyncClient(base_url=first, timeout=30) as http:
        cookie = await signed_in(http, token)
        page = await http.get(f"/console/?ns={ns}")
        async with httpx.AsyncClient(base_url=second, timeout=30,
                                     cookies={"engram_console": cookie}) as other:
            assert (await other.get(f"/console/?ns={ns}")).status_code == 200
            out = await http.post("/console/signout", data={"csrf": csrf_in(page.text)})
            assert out.status_code == 303
            for base in (first, second):
                async with httpx.AsyncClient(base_url=base, timeout=30,
                                             cookies={"engram_console": cookie}) as thief:
                    replayed = await thief.get(f"/console/?ns={ns}")
                    assert replayed.status_code == 303, (base, replayed.text[:200])
                    assert replayed.headers["location"] == "/console/signin"


async def _entry_events(dsn: str, ids: list[str]) -> dict[str, int]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT subject_id, count(*) AS n FROM dreamer.processed_events"
            " WHERE event_type = 'memory.entry.stored' AND subject_id = ANY($1::text[])"
            " GROUP BY subject_id", ids)
        return {r["subject_id"]: r["n"] for r in rows}
    finally:
        await conn.close()


async def test_killing_one_replica_of_each_loses_no_acknowledged_write(rstack: Stack,
                                                                       token: str):
    """Under load, SIGKILL one replica of every replicated service: every call
    succeeds within the documented retry, every acknowledged store reads back,
    and the dreamer applies each stored entry's event exactly once."""
    agents = [RetryingAgent(rstack, token, f"kill-{i}") for i in range(3)]
    victims = ["gateway-2", "memory-1", "cortex-2", "dreamer-1", "coordination-1"]

    async def kill_soon() -> None:
        await asyncio.sleep(3)
        for name in victims:
            proc = rstack.procs[name]
            os.kill(proc.pid, signal.SIGKILL)
            await asyncio.to_thread(proc.wait)

    try:
        results = await asyncio.gather(
            kill_soon(), *[_store_load(a, f"kill{i}", 10) for i, a in enumerate(agents)])
        ids = [i for batch in results[1:] for i in (batch or [])]
        assert len(ids) == 30
        for entry_id in ids:
            got = await agents[0].call("memory_get", {"id": entry_id})
            assert entry_id in json.dumps(got)
    finally:
        for a in agents:
            await a.close()
    assert set(dead_services(rstack)) == set(victims)

    async def all_applied() -> bool:
        return len(await _entry_events(rstack.postgres.admin_dsn, ids)) == len(set(ids))

    await eventually(all_applied, 90, "every stored entry's event applied by the dreamer")
    counts = await _entry_events(rstack.postgres.admin_dsn, ids)
    assert set(counts.values()) == {1}, "an event applied twice"


def test_supervisor_restarts_a_replica_on_its_ports_and_status_lists_replicas(rstack: Stack):
    """`engram up`'s supervisor restarts a killed replica alone, on the ports
    its callers were given; `engram status` shows every replica, and `engram
    doctor` checks every one."""
    for name in ("memory-2", "gateway-2"):
        if rstack.procs[name].poll() is None:
            os.kill(rstack.procs[name].pid, signal.SIGKILL)
            rstack.procs[name].wait()
    ports = {n: dict(spec.ports) for n, spec in rstack.instances.items()}
    supervisor = Supervisor(rstack, rstack.settings, lambda _line: None)
    try:
        deadline = time.monotonic() + 60
        while dead_services(rstack) or any(
                w.restart_at is not None for w in supervisor.watched.values()):
            assert time.monotonic() < deadline, dead_services(rstack)
            supervisor.tick()
            time.sleep(0.2)
        rstack.wait_ready(list(rstack.instances), 120)
        assert {n: dict(spec.ports) for n, spec in rstack.instances.items()} == ports
        out = subprocess.run([sys.executable, "-m", "engram_cli", "status", "--json",
                              "--data-dir", str(rstack.data_dir)],
                             capture_output=True, text=True, timeout=60)
        rows = {r["name"]: r for r in json.loads(out.stdout)["processes"]}
        for service in REPLICATED:
            for index, name in enumerate(rstack.replica_names(service), start=1):
                assert rows[name]["service"] == service and rows[name]["replica"] == index
                assert rows[name]["ready"], rows[name]
        assert rows["memory-2"]["restarts"] >= 1 and rows["embedder"]["replica"] == 0
        assert out.returncode == 0, out.stderr
        _doctor_checks_every_replica(rstack)
    finally:
        supervisor.close()


def _engram_doctor(rstack: Stack) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engram_cli", "doctor", "--data-dir",
                           str(rstack.data_dir)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ENGRAM_PORT_OFFSET": str(OFFSET)})


def _doctor_checks_every_replica(rstack: Stack) -> None:
    """`engram doctor` checks each replica at its own address, and one replica
    down is a problem even while replica 1 answers."""
    healthy = _engram_doctor(rstack)
    for service in REPLICATED:
        for name in rstack.replica_names(service):
            assert f"[ok] {name} ready" in healthy.stdout, (name, healthy.stdout)
    assert "[ok] memory-2 outbox lag" in healthy.stdout, healthy.stdout
    assert healthy.returncode == 0, healthy.stdout
    rstack.stop_service("cortex-2")
    try:
        down = _engram_doctor(rstack)
        assert "[!!] cortex-2: not answering http://127.0.0.1:" in down.stdout, down.stdout
        assert "[ok] cortex-1 ready" in down.stdout and down.returncode == 1, down.stdout
    finally:
        rstack.start_service("cortex-2")
        rstack.wait_ready(["cortex-2"], 120)


async def test_coordination_down_costs_tool_calls_no_wait(rstack: Stack, token: str):
    """Every tool call asks coordination for the caller's toolset tier; with
    every coordination replica down, calls still answer promptly (the
    default tier applies) and the tools the tier allows still work."""
    names = rstack.replica_names("coordination")
    for name in names:
        rstack.stop_service(name)
    try:
        async with mcp_client(rstack.mcp_url, token) as client:
            stored = await call(client, "memory_store",
                                {"text": f"coordination outage probe {uuid.uuid4().hex}"})
            started = time.monotonic()
            for _ in range(3):
                listed = await client.list_tools()
            took = time.monotonic() - started
        # Each lookup through the full retry budget would take 1.5 s or more.
        assert stored["id"] and took < 3.0, took
        assert len(listed.tools) > 20  # the default tier (full)
    finally:
        for name in names:
            rstack.start_service(name)
        rstack.wait_ready(names, 120)
