"""Episodes through MCP: a session gets one automatically, tasks nest inside
it, entries carry their episode, and the briefing recaps them."""

from __future__ import annotations

from engram_cli.stack import Stack

from .helpers import call, call_error, mcp_client


async def test_session_episode_nesting_and_briefing(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        first = await call(client, "memory_store", {"text": "Episode check: the repo uses uv."})
        session = (await call(client, "memory_get", {"id": first["id"]}))["episode"]
        titled = await call(client, "session_title", {"title": "Tooling clean-up"})
        task = await call(client, "episode_start", {"title": "Migrate CI to uv"})
        inner = await call(client, "memory_store",
                           {"text": "Episode check: CI caches ~/.cache/uv between runs."})
        inner_episode = (await call(client, "memory_get", {"id": inner["id"]}))["episode"]
        in_task = await call(client, "memory_search", {"query": "CI cache uv",
                                                       "episode": task["id"]})
        ended = await call(client, "episode_end", {})
        after = await call(client, "memory_store",
                           {"text": "Episode check: lint runs ruff only."})
        after_episode = (await call(client, "memory_get", {"id": after["id"]}))["episode"]
        cannot = await call_error(client, "episode_end", {})
        brief = await call(client, "briefing", {"token_budget": 2000})
    assert session and titled["id"] == session and titled["title"] == "Tooling clean-up"
    assert task["parent"] == session and inner_episode == task["id"]
    assert [e["id"] for e in in_task["entries"]] == [inner["id"]]
    assert ended["id"] == task["id"] and after_episode == session
    assert "no open episode" in cannot
    episodes = {e["id"]: e for e in brief["episodes"]}
    assert episodes[task["id"]]["ended"] is not None
    assert episodes[session]["title"] == "Tooling clean-up"
    assert "Episode check: lint runs ruff only." in episodes[session]["latest"]
    assert "board_mail" in brief["unavailable"]


async def test_episode_start_as_the_first_call_nests_under_the_session(stack: Stack,
                                                                       agent_token: str):
    # The session's own episode and the task are created in one transaction.
    async with mcp_client(stack.mcp_url, agent_token) as client:
        task = await call(client, "episode_start", {"title": "first thing this session"})
        inner = await call(client, "memory_store", {"text": "Episode check: first-call task."})
        inner_episode = (await call(client, "memory_get", {"id": inner["id"]}))["episode"]
        ended = await call(client, "episode_end", {})
    assert task["parent"] and inner_episode == task["id"] and ended["id"] == task["id"]


async def test_briefing_respects_the_token_budget(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        small = await call(client, "briefing", {"token_budget": 100})
        tiny = await client.call_tool("briefing", {"token_budget": 5})
    assert len(small["episodes"]) >= 1
    assert small["tokens"] < 400
    assert tiny.is_error and "greater than or equal to 100" in tiny.content[0].text


async def test_handshake_sessions_get_their_own_episode(stack: Stack, agent_token: str):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {agent_token}"}, timeout=30)
    episodes = []
    for _ in range(2):
        async with Client(streamable_http_client(stack.mcp_url, http_client=http),
                          mode="legacy") as client:
            stored = await call(client, "memory_store", {"text": f"Legacy session {_} note."})
            episodes.append((await call(client, "memory_get", {"id": stored["id"]}))["episode"])
    assert episodes[0] and episodes[1] and episodes[0] != episodes[1]
