"""Bad input through MCP: a clear tool error, and nothing stored."""

from __future__ import annotations

import pytest

from engram_gateway import registry
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call_error, mcp_client

COUNT = "SELECT count(*) FROM memory.entries"
OUTBOX = "SELECT count(*) FROM memory.outbox"


@pytest.mark.parametrize(("args", "expected"), [
    ({"text": ""}, "text must not be empty"),
    ({"text": "   \n "}, "text must not be empty"),
    ({"text": "x" * 16_001}, "the limit is 16000"),
    ({"text": 42}, "valid string"),
    ({"text": "ok", "tags": "not-a-list"}, "valid list"),
    ({"text": "ok", "tags": ["Bad Tag!"]}, "is invalid"),
    ({"text": "ok", "tags": [f"t{i}" for i in range(21)]}, "at most 20 tags"),
    ({"text": "ok", "origin": "robot"}, "origin must be one of"),
    ({"text": "ok", "valid_from": "yesterday-ish"}, "ISO-8601"),
    ({}, "text"),
])
async def test_store_rejects_bad_input_and_stores_nothing(stack: Stack, agent_token: str,
                                                          admin_dsn: str, args: dict,
                                                          expected: str):
    before = (await admin_fetchval(admin_dsn, COUNT), await admin_fetchval(admin_dsn, OUTBOX))
    async with mcp_client(stack.mcp_url, agent_token) as client:
        message = await call_error(client, "memory_store", args)
    assert expected in message
    assert "Traceback" not in message
    after = (await admin_fetchval(admin_dsn, COUNT), await admin_fetchval(admin_dsn, OUTBOX))
    assert after == before


@pytest.mark.parametrize(("args", "expected"), [
    ({"query": ""}, "query must not be empty"),
    ({"query": "q" * 2_001}, "the limit is 2000"),
    ({"query": "x", "top_k": 0}, "greater than or equal to 1"),
    # refused by the tool's own schema, before any service is called
    ({"query": "x", "top_k": 51}, "top_k\n  Input should be less than or equal to 50"),
    ({"query": "x", "top_k": "many"}, "valid integer"),
    ({"query": "x", "since": "2026-02-01", "until": "2026-01-01"}, "since must be earlier"),
    ({"query": "x", "namespace": "Bad Namespace"}, "namespace must be"),
])
async def test_search_rejects_bad_input(stack: Stack, agent_token: str, args: dict,
                                        expected: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        message = await call_error(client, "memory_search", args)
    assert expected in message


async def test_unknown_tool_is_a_tool_error(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        message = await call_error(client, "memory_teleport", {"text": "x"})
        tools = {t.name for t in (await client.list_tools()).tools}
    assert "Unknown tool" in message
    # Only tools the stack can serve are advertised.
    # Every tool of the registry is advertised (the test stack's tier is full), and no other.
    assert tools == set(registry.BY_NAME)


async def test_nul_characters_are_refused_with_the_field_name(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        err = await call_error(client, "memory_search", {"query": "abc\x00def"})
        assert "query contains a NUL character" in err
        err = await call_error(client, "fact_set", {"entity": "e", "attribute": "a",
                                                    "value": "v", "evidence_quote": "q\x00"})
        assert "evidence_quote contains a NUL character" in err
