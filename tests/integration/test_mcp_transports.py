"""MCP conformance over both transports: each test runs over the gateway's
streamable HTTP endpoint and over stdio through `engram mcp-stdio` (spawned by
the official SDK's stdio client), and what the stdio client sees must be what
an HTTP client sees: the handshake, the tool list, results, errors, prompts
and the tools/list_changed notification."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ToolsListChanged

from engram_runner.stack import Stack

from ..helpers import call, mcp_stdio_client, result_text

TRANSPORTS = ("http", "stdio")
LEGACY_VERSION = "2025-11-25"  # what the SDK's handshake-era client proposes
MINIMAL_TOOLS = {"memory_store", "memory_search", "briefing", "toolset"}


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


@asynccontextmanager
async def connect(transport: str, stack: Stack, token: str, session: str = "",
                  **options: Any) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with mcp_stdio_client(stack.mcp_url, token, session, **options) as client:
            yield client
        return
    headers = {"Authorization": f"Bearer {token}"}
    if session:
        headers["X-Engram-Session"] = session
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    async with Client(streamable_http_client(stack.mcp_url, http_client=http),
                      **options) as client:
        yield client


def tool_dump(client_tools: Any) -> list[dict[str, Any]]:
    return [t.model_dump(mode="json") for t in client_tools.tools]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_handshake_and_tool_list_match_http(stack: Stack, agent_token: str,
                                                 transport: str, mode: str):
    """Both eras: the 2026 discover probe (mode auto) and the initialize
    handshake stdio clients such as Claude Desktop use (legacy)."""
    async with connect("http", stack, agent_token, mode=mode) as ref:
        ref_tools = tool_dump(await ref.list_tools())
        ref_caps = ref.server_capabilities.model_dump(mode="json")
        ref_info = ref.server_info
    async with connect(transport, stack, agent_token, mode=mode) as client:
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else LEGACY_VERSION)
        assert client.server_info == ref_info and ref_info and ref_info.name == "engram"
        assert client.server_capabilities.model_dump(mode="json") == ref_caps
        tools = tool_dump(await client.list_tools())
        stored = await call(client, "memory_store", {
            "text": f"The {mode} handshake works over {transport} ({uuid.uuid4().hex[:8]})."})
    assert tools == ref_tools and len(tools) > 20
    assert stored["finding"] == "new"


async def test_write_then_read(stack: Stack, agent_token: str, transport: str):
    cluster = f"{transport}{uuid.uuid4().hex[:8]}"
    text = f"Backups of the {cluster} cluster run at 03:15 UTC."
    async with connect(transport, stack, agent_token) as client:
        stored = await call(client, "memory_store", {"text": text, "tags": ["backup"]})
        found = await call(client, "memory_search", {"query": f"{cluster} cluster backups",
                                                     "tags": ["backup"], "top_k": 3})
    assert stored["finding"] == "new" and stored["embedded"] is True
    assert found["entries"][0]["id"] == stored["id"]
    assert found["entries"][0]["text"] == text


async def test_errors_pass_through_unchanged(stack: Stack, agent_token: str, transport: str):
    """A tool error, an unknown tool and a JSON-RPC error read exactly as over HTTP."""
    async def errors(via: str) -> tuple[Any, Any, tuple[int, str]]:
        async with connect(via, stack, agent_token) as client:
            refused = await client.call_tool("memory_search", {"query": "x",
                                                               "namespace": "not-mine"})
            unknown = await client.call_tool("no_such_tool", {})
            with pytest.raises(MCPError) as rpc:
                await client.get_prompt("no-such-prompt")
        return refused, unknown, (rpc.value.error.code, rpc.value.error.message)

    ref = await errors("http")
    refused, unknown, rpc = await errors(transport)
    assert refused.is_error and "may not use namespace 'not-mine'" in result_text(refused)
    assert unknown.is_error and result_text(unknown) == "Unknown tool: no_such_tool"
    assert refused.model_dump() == ref[0].model_dump()
    assert unknown.model_dump() == ref[1].model_dump()
    assert rpc == ref[2]
    assert rpc == (-32602, "unknown prompt 'no-such-prompt'; the prompts are: briefing")


async def test_prompts(stack: Stack, agent_token: str, transport: str):
    async with connect("http", stack, agent_token) as ref:
        ref_prompts = (await ref.list_prompts()).model_dump(mode="json")
    async with connect(transport, stack, agent_token) as client:
        prompts = (await client.list_prompts()).model_dump(mode="json")
        briefing = await client.get_prompt("briefing")
    assert prompts == ref_prompts
    assert [p["name"] for p in prompts["prompts"]] == ["briefing"]
    assert briefing.messages and briefing.messages[0].role == "user"


async def test_tools_list_changed_reaches_the_client(stack: Stack, transport: str):
    """Changing the toolset tier publishes notifications/tools/list_changed on
    the client's `subscriptions/listen` stream; over stdio too."""
    token = stack.principals.create(f"lc-{transport}-{uuid.uuid4().hex[:6]}", "agent",
                                    ["default"])
    async with connect(transport, stack, token) as client, \
            client.listen(tools_list_changed=True) as subscription:
        assert subscription.honored and subscription.honored.tools_list_changed
        small = await call(client, "toolset", {"tier": "minimal"})
        with anyio.fail_after(15):
            event = await subscription.__anext__()
        listed = {t.name for t in (await client.list_tools()).tools}
    assert small["changed"] and isinstance(event, ToolsListChanged)
    assert listed == MINIMAL_TOOLS
