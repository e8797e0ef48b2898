"""Store and find memories through the real gateway with the MCP SDK client."""

from __future__ import annotations

import httpx

from engram_runner.stack import Stack

from ..helpers import call, mcp_client, result_text

MEMORIES = [
    ("The staging database runs on host db-stage-02, port 6543.", ["infra", "db"]),
    ("Alice prefers tabs over spaces in every Go file.", ["people", "style"]),
    ("Release builds are signed with the key in vault path secret/release.", ["release"]),
]


async def test_store_then_search_finds_the_right_memory_first(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        ids = []
        for text, tags in MEMORIES:
            reply = await call(client, "memory_store", {"text": text, "tags": tags,
                                                       "source": "test"})
            assert reply["finding"] == "new"
            assert reply["embedded"] is True
            assert reply["superseded"] == []
            ids.append(reply["id"])
        found = await call(client, "memory_search",
                           {"query": "which host is the staging database on?", "top_k": 3})
    first = found["entries"][0]
    assert first["id"] == ids[0]
    assert first["text"] == MEMORIES[0][0]
    assert first["tags"] == ["infra", "db"]
    assert first["score"] > 0
    assert len(first["date"]) == 10 and first["date"][4] == "-"
    assert first["label"] == "current"
    assert found["layer"] == "entries" and found["mode"] == "hybrid"
    assert found["tokens"] > 0


async def test_restatement_adds_nothing(stack: Stack, agent_token: str):
    text = "The on-call rotation changes every Monday at 09:00 UTC."
    async with mcp_client(stack.mcp_url, agent_token) as client:
        first = await call(client, "memory_store", {"text": text})
        again = await call(client, "memory_store", {"text": "  " + text.upper() + " "})
    assert again["finding"] == "restatement"
    assert again["id"] == first["id"]


async def test_search_explain_and_filters(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "memory_store", {"text": "Bob owns the billing service runbook.",
                                            "tags": ["owners"]})
        found = await call(client, "memory_search", {"query": "billing runbook owner",
                                                     "explain": True, "tags": ["owners"]})
        none = await call(client, "memory_search", {"query": "billing runbook owner",
                                                    "tags": ["no-such-tag"]})
    assert found["entries"] and all("owners" in e["tags"] for e in found["entries"])
    trace = found["entries"][0]["trace"]
    assert trace["dense_rank"] == 1 and trace["lexical_rank"] == 1
    assert none["entries"] == []


async def test_other_namespace_cannot_see_memories(stack: Stack, agent_token: str):
    other = stack.principals.create("other-agent", "agent", ["other"])
    async with mcp_client(stack.mcp_url, other) as client:
        found = await call(client, "memory_search",
                           {"query": "staging database host db-stage-02", "top_k": 10})
        denied = await client.call_tool("memory_search", {"query": "x", "namespace": "default"})
    assert found["entries"] == []
    assert denied.is_error and "may not use namespace 'default'" in result_text(denied)


def _initialize(url: str, headers: dict[str, str]) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}
    return httpx.post(url, json=body, headers={
        "Accept": "application/json, text/event-stream", **headers}, timeout=10)


def test_missing_and_wrong_tokens_get_401(stack: Stack):
    assert _initialize(stack.mcp_url, {}).status_code == 401
    wrong = _initialize(stack.mcp_url, {"Authorization": "Bearer eg_not-a-real-token"})
    assert wrong.status_code == 401
    assert "Bearer" in wrong.headers.get("www-authenticate", "")


def test_foreign_host_header_is_refused(stack: Stack, agent_token: str):
    reply = _initialize(stack.mcp_url, {"Authorization": f"Bearer {agent_token}",
                                        "Host": "evil.example.com"})
    assert reply.status_code in (400, 421)


async def test_handshake_teaches_the_memory_loop(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        instructions = client.instructions or ""
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert "Search before acting" in instructions
    assert "Correct instead of duplicating" in instructions
    assert "At session start call briefing" in instructions
    search, store = tools["memory_search"].annotations, tools["memory_store"].annotations
    assert search is not None and search.read_only_hint is True
    assert store is not None and store.read_only_hint is False
