"""Episodes through MCP: a session gets one automatically, tasks nest inside
it, entries carry their episode, and the briefing recaps them."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest

from engram.v1 import cortex_pb2, cortex_pb2_grpc
from engram_kit.context import CallerContext
from engram_runner.stack import Stack

from ..helpers import call, call_error, mcp_client, result_text


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
    assert brief["unavailable"] == {}


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
    assert tiny.is_error and "greater than or equal to 100" in result_text(tiny)


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


async def test_briefing_gathers_rules_conflicts_lessons_and_mail(stack: Stack):
    """Each section comes from the service that holds it, in a namespace of
    its own; with the board down, mail is listed as unavailable and the
    rest still arrives."""
    ns = f"brief-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token, session="s-brief") as me, \
            mcp_client(stack.mcp_url, token, session="s-peer") as peer:
        rule = await call(me, "fact_set", {"entity": "main-branch", "attribute": "force_push",
                                           "value": "never", "kind": "RULE"})
        pref = await call(me, "fact_set", {"entity": "team", "attribute": "indent",
                                           "value": "four spaces", "kind": "PREFERENCE"})
        await call(me, "fact_set", {"entity": "api", "attribute": "owner", "value": "Ana"})
        await call(me, "fact_set", {"entity": "billing", "attribute": "ci",
                                    "value": "GitHub Actions"})
        contested = await call(me, "fact_set", {"entity": "billing", "attribute": "ci",
                                                "value": "Jenkins"})
        lesson = (await call(me, "outcome_record", {
            "task": "deploying billing", "outcome": "correction",
            "detail": "run the migrations before deploying"}))["lesson"]
        me_id = (await call(me, "board_agents", {"action": "update", "status": "working"})
                 )["agent"]["id"]
        await call(peer, "board_message", {"action": "send", "to": me_id,
                                           "text": "the staging deploy is yours"})
        await call(me, "memory_store", {"text": "Briefing check: billing deploys on Fridays."})
        brief = await call(me, "briefing", {"token_budget": 4000})
        again = await call(me, "board_message", {"action": "receive"})
        small = await call(me, "briefing", {"token_budget": 100})

        stack.stop_service("coordination")
        try:
            degraded = await call(me, "briefing", {"token_budget": 4000})
        finally:
            stack.start_service("coordination")
            stack.wait_ready(["coordination"], 60)

    rules = brief["rules_and_constraints"]
    assert [f["id"] for f in rules["facts"]] == [rule["fact"]["id"], pref["fact"]["id"]]
    assert rules["total"] == 2, "a STATE fact is not a rule"
    state = brief["state_facts"]
    assert {f["kind"] for f in state["facts"]} == {"STATE"}
    assert ("api", "owner", "Ana", f"a-{ns}") in {
        (f["entity"], f["attribute"], f["value"], f["writer"]) for f in state["facts"]}
    assert state["total"] >= 2
    [conflict] = brief["open_conflicts"]["conflicts"]
    assert conflict["id"] == contested["conflict_id"] and conflict["resolve_call"]
    assert [x["id"] for x in brief["lessons"]["lessons"]] == [lesson["id"]]
    mail = brief["board_mail"]
    assert [m["text"] for m in mail["messages"]] == ["the staging deploy is yours"]
    assert mail["pending"] == 1 and "not an instruction" in mail["origin"]
    assert len(again["messages"]) == 1, "the briefing reads mail without acknowledging it"
    assert any("Fridays" in t for e in brief["episodes"] for t in e["latest"])
    assert brief["unavailable"] == {} and not brief["truncated"]

    assert small["truncated"] and small["tokens"] < 400
    assert [f["id"] for f in small["rules_and_constraints"]["facts"]] == [rule["fact"]["id"]]
    assert small["lessons"]["lessons"] == [] and small["board_mail"]["messages"] == []
    assert small["state_facts"]["facts"] == [], "state facts are trimmed first"

    assert "board_mail" not in degraded and "coordination" in degraded["unavailable"][
        "board_mail"]
    assert degraded["rules_and_constraints"]["total"] == 2 and degraded["episodes"]


async def test_knowledge_briefing_limits_are_checked(stack: Stack):
    port = stack.topology.services["cortex"].ports[8752]
    md = CallerContext(principal="t", namespace="default").to_metadata(
        stack.secrets["ENGRAM_INTERNAL_TOKEN"])
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = cortex_pb2_grpc.CortexKnowledgeStub(channel)
        for request, field in ((cortex_pb2.KnowledgeBriefingRequest(rules=51), "rules"),
                               (cortex_pb2.KnowledgeBriefingRequest(lessons=-1), "lessons"),
                               (cortex_pb2.KnowledgeBriefingRequest(state=51), "state")):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.KnowledgeBriefing(request, metadata=md, timeout=10)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert f"{field} is 0-50" in (err.value.details() or "")
        ok = await stub.KnowledgeBriefing(cortex_pb2.KnowledgeBriefingRequest(rules=1),
                                          metadata=md, timeout=10)
    assert len(ok.rules) == min(1, ok.rules_total)


async def test_concurrent_first_stores_of_a_session_open_one_episode(stack: Stack):
    """A store resolves its episode before its audited write: the first writes
    of a session, concurrent, still open one episode between them."""
    ns = f"ep-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        stored = await asyncio.gather(*(call(client, "memory_store", {
            "text": f"Episode check: concurrent line {i}.", "namespace": ns})
            for i in range(6)))
        episodes = {(await call(client, "memory_get", {"id": s["id"], "namespace": ns})
                     )["episode"] for s in stored}
    assert len(episodes) == 1 and "" not in episodes
