"""Two replicas of every stateless service (one embedder), as
`engram up --replicas` runs them: load spreads over the replicas, killing
one replica of each loses no acknowledged write, the dreamer applies each
event once and runs one pass at a time per namespace, and leases stay
exclusive with rising fencing tokens."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from engram_cli.settings import CliSettings
from engram_cli.stack import Stack

from ..conftest import PORT_SHIFT
from ..helpers import call, eventually, result_text
from ..replica_tools import alternating_client, counter_sum, metrics_text, rpc_calls

OFFSET = 450 + PORT_SHIFT
SPEC = "gateway=2,memory=2,cortex=2,dreamer=2,coordination=2,embedder=1"
REPLICATED = ("gateway", "memory", "cortex", "dreamer", "coordination")
# The documented client retry (docs/reliability.md, "The load"): a call that
# ends in a retryable error, a dropped connection or no answer is tried again,
# up to 3 attempts in all, on a new session when the old one was dropped.
ATTEMPTS = 3


@pytest.fixture(scope="module")
def rstack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir: Path = tmp_path_factory.mktemp("replicas")
    s = Stack(CliSettings(data_dir=data_dir, port_offset=OFFSET, replicas=SPEC))
    s.start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def token(rstack: Stack) -> str:
    assert rstack.first_token
    return rstack.first_token


class RetryingAgent:
    """One agent as a careful client runs it: the documented retry, and a new
    client when the old one broke."""

    def __init__(self, stack: Stack, token: str, session: str = "") -> None:
        self.stack, self.token, self.session = stack, token, session
        self._es: AsyncExitStack | None = None
        self.client: Client | None = None

    async def _open(self) -> Client:
        if self.client is None:
            self._es = AsyncExitStack()
            self.client = await self._es.enter_async_context(alternating_client(
                self.stack.gateway_urls, self.token, self.session))
        return self.client

    async def close(self) -> None:
        if self._es is not None:
            es, self._es, self.client = self._es, None, None
            with contextlib.suppress(BaseException):  # a broken client: dropped
                await es.aclose()

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        last = ""
        for _ in range(ATTEMPTS):
            try:
                result = await asyncio.wait_for((await self._open()).call_tool(tool, args), 20)
            except Exception as exc:  # dropped connection, no answer: a new client
                last = repr(exc)
                await self.close()
                continue
            text = result_text(result)
            if not result.is_error:
                return await asyncio.to_thread(_reply, result, text)
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
            "text": f"replica load {tag} item {i}: service {tag}-{i} listens on port {9000 + i}",
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
