"""Negative evals: on every read path, a superseded, forgotten or
other-namespace row is never served as current. Rows are written and read
through the public MCP API only."""

from __future__ import annotations

import pytest

from engram_runner.stack import Stack

from ..helpers import call, call_error, mcp_client

TOPIC = "the quarterly report template lives in docs/templates/qr-v"


@pytest.fixture(scope="module")
async def rows(stack: Stack, agent_token: str) -> dict[str, str]:
    other = stack.principals.create("neg-other", "agent", ["neg-other"])
    async with mcp_client(stack.mcp_url, other) as client:
        foreign = await call(client, "memory_store", {"text": f"Foreign: {TOPIC}9.md",
                                                      "tags": ["negative"]})
    async with mcp_client(stack.mcp_url, agent_token) as client:
        old = await call(client, "memory_store", {"text": f"Old: {TOPIC}1.md",
                                                  "tags": ["negative"]})
        new = await call(client, "memory_supersede", {"entry_id": old["id"],
                                                      "new_text": f"Now: {TOPIC}2.md"})
        doomed = await call(client, "memory_store", {"text": f"Forgotten: {TOPIC}3.md",
                                                     "tags": ["negative"]})
        await call(client, "memory_forget", {"entry_id": doomed["id"], "reason": "negative eval"})
    return {"foreign": foreign["id"], "old": old["id"], "new": new["id"],
            "forgotten": doomed["id"]}


async def test_search_never_serves_retired_forgotten_or_foreign(stack: Stack, agent_token: str,
                                                                rows: dict[str, str]):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        found = await call(client, "memory_search", {"query": TOPIC, "top_k": 50})
        lexical = await call(client, "memory_search", {"query": "quarterly report template qr",
                                                       "top_k": 50, "tags": ["negative"]})
    for reply in (found, lexical):
        ids = [e["id"] for e in reply["entries"]]
        assert rows["old"] not in ids and rows["forgotten"] not in ids
        assert rows["foreign"] not in ids
        assert all(e["label"] in ("current", "contested") for e in reply["entries"])
    assert rows["new"] in [e["id"] for e in found["entries"]]


async def test_history_search_labels_the_retired_and_still_hides_the_rest(
        stack: Stack, agent_token: str, rows: dict[str, str]):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        found = await call(client, "memory_search", {"query": TOPIC, "top_k": 50,
                                                     "include_history": True})
    served = {e["id"]: e["label"] for e in found["entries"]}
    assert served[rows["old"]].startswith("superseded")
    assert rows["forgotten"] not in served and rows["foreign"] not in served


async def test_recent_never_serves_retired_forgotten_or_foreign(stack: Stack, agent_token: str,
                                                                rows: dict[str, str]):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        recent = await call(client, "memory_recent", {"n": 50})
    ids = [e["id"] for e in recent["entries"]]
    assert rows["new"] in ids
    assert rows["old"] not in ids and rows["forgotten"] not in ids and rows["foreign"] not in ids


async def test_get_labels_the_retired_and_refuses_forgotten_and_foreign(
        stack: Stack, agent_token: str, rows: dict[str, str]):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        old = await call(client, "memory_get", {"id": rows["old"]})
        forgotten = await call_error(client, "memory_get", {"id": rows["forgotten"]})
        foreign = await call_error(client, "memory_get", {"id": rows["foreign"]})
    assert old["label"] != "current" and old["superseded_by"] == rows["new"]
    assert "forgotten" in forgotten
    assert "does not exist in this namespace" in foreign
