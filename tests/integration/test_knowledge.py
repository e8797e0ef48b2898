"""World facts, lessons, the tag registry and the review queue through MCP."""

from __future__ import annotations

import uuid

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client


async def test_world_facts_cite_and_decay(stack: Stack, agent_token: str, admin_dsn: str):
    lib = f"lib{uuid.uuid4().hex[:6]}"
    async with mcp_client(stack.mcp_url, agent_token) as client:
        err = await call_error(client, "world_set", {
            "entity": lib, "attribute": "latest_version", "value": "2.0",
            "source_url": "not a url", "source_quote": "2.0 is out"})
        assert "source_url must be an http(s) URL" in err
        err = await call_error(client, "world_set", {
            "entity": lib, "attribute": "latest_version", "value": "2.0",
            "source_url": "https://pypi.org/project/x", "source_quote": " "})
        assert "source_quote is required" in err
        first = await call(client, "world_set", {
            "entity": lib, "attribute": "latest_version", "value": "2.0",
            "source_url": f"https://pypi.org/project/{lib}", "freshness": "volatile",
            "source_quote": f"{lib} 2.0 released"})
        assert first["action"] == "insert" and first["fact"]["stale"] is False
        newer = await call(client, "world_set", {
            "entity": lib, "attribute": "latest_version", "value": "2.1",
            "source_url": f"https://pypi.org/project/{lib}", "freshness": "volatile",
            "source_quote": f"{lib} 2.1 released"})
        assert newer["action"] == "supersede"
        # Age the citation by two half-lives: trust decays to a quarter, flagged stale.
        await admin_fetchval(admin_dsn, "UPDATE cortex.world_facts SET checked_at = now() - "
                             "interval '14 days' WHERE id = $1::uuid", newer["fact"]["id"])
        found = await call(client, "world_search", {"query": f"{lib} latest version"})
        [hit] = [f for f in found["facts"] if f["entity"] == lib]
        assert hit["value"] == "2.1" and hit["stale"] is True
        assert 0.24 <= hit["effective_confidence"] <= 0.26
        assert hit["citation"]["quote"] == f"{lib} 2.1 released"


async def test_outcomes_distil_lessons_that_flag_changed_facts(stack: Stack, agent_token: str):
    e = f"svc-{uuid.uuid4().hex[:6]}"
    async with mcp_client(stack.mcp_url, agent_token) as client:
        fact = await call(client, "fact_set", {"entity": e, "attribute": "deploy_tool",
                                               "value": "helm"})
        task, detail = f"deploy {e}", "run the migrations before helm upgrade"
        one = await call(client, "outcome_record", {"task": task, "outcome": "failure",
                                                    "detail": detail,
                                                    "used_ids": [fact["fact"]["id"]]})
        assert one["identical_signals"] == 1 and "lesson" not in one
        two = await call(client, "outcome_record", {"task": task, "outcome": "failure",
                                                    "detail": detail})
        lesson = two["lesson"]
        assert lesson["polarity"] == "avoid" and lesson["signals"] == 2
        assert lesson["subject_fact_ids"] == [fact["fact"]["id"]]
        fix = await call(client, "outcome_record", {
            "task": task, "outcome": "correction",
            "detail": "always run migrations as a pre-upgrade hook"})
        assert fix["lesson"]["polarity"] == "do"
        assert fix["lesson"]["confidence"] > lesson["confidence"], "a correction outranks"
        found = await call(client, "lesson_search", {"query": f"deploy {e} migrations"})
        assert {x["id"] for x in found["lessons"]} >= {lesson["id"], fix["lesson"]["id"]}
        assert all("re_verify" not in x for x in found["lessons"] if x["id"] == lesson["id"])
        await call(client, "fact_set", {"entity": e, "attribute": "deploy_tool",
                                        "value": "argocd", "replaces": True})
        found = await call(client, "lesson_search", {"query": f"deploy {e} migrations"})
        [again] = [x for x in found["lessons"] if x["id"] == lesson["id"]]
        assert "re_verify" in again
        err = await call_error(client, "outcome_record", {"task": task,
                                                          "outcome": "correction"})
        assert "a correction needs detail" in err


async def test_tags_resolve_in_order_and_roots_need_a_reviewer(stack: Stack, agent_token: str):
    t = uuid.uuid4().hex[:6]
    root = f"lang{t}"
    reviewer = stack.principals.create(f"tg-{t}", "reviewer", ["default"])
    async with mcp_client(stack.mcp_url, agent_token) as client:
        unresolved = await call(client, "fact_set", {
            "entity": f"svc-{t}", "attribute": "language", "value": "python",
            "tags": [f"{root}.python"]})
        assert unresolved["unresolved_tags"] == [f"{root}.python"]
        assert "tags" not in unresolved["fact"]
        proposed = await call(client, "tag_propose_root", {"tag": root, "reason": "languages"})
        assert proposed["status"] == "proposed"
        err = await call_error(client, "review_decide", {
            "item_id": f"tag:{root}", "decision": "approve", "reasoning": "fine"})
        assert "reviewer role" in err
        async with mcp_client(stack.mcp_url, reviewer) as rev:
            queue = await call(rev, "review_list", {"kind": "root_tag"})
            assert f"tag:{root}" in [i["id"] for i in queue["items"]]
            decided = await call(rev, "review_decide", {"item_id": f"tag:{root}",
                                                        "decision": "approve",
                                                        "reasoning": "we need it"})
            assert decided["status"] == "approved"
            await call(client, "tag_propose_root", {"tag": f"fad{t}", "reason": "trendy"})
            await call(rev, "review_decide", {"item_id": f"tag:fad{t}", "decision": "reject",
                                              "reasoning": "not a category"})
        again = await call_error(client, "tag_propose_root", {"tag": f"fad{t}",
                                                              "reason": "please"})
        assert "rejected" in again and "not proposed again" in again
        minted = await call(client, "fact_set", {
            "entity": f"svc-{t}", "attribute": "runtime", "value": "cpython 3.12",
            "tags": [f"{root}.python"]})
        assert minted["fact"]["tags"] == [f"{root}.python"]
        await call(client, "tag_alias", {"alias": f"py{t}", "tag": f"{root}.python"})
        by_leaf = await call(client, "fact_set", {"entity": f"svc-{t}", "attribute": "linter",
                                                  "value": "ruff",
                                                  "tags": ["python", f"py{t}"]})
        assert by_leaf["fact"]["tags"] == [f"{root}.python"]
        err = await call_error(client, "fact_set", {"entity": f"svc-{t}", "attribute": "x",
                                                    "value": "y", "tags": ["Bad Tag!"]})
        assert "malformed tag" in err


async def test_repeated_corrections_without_facts_reinforce_one_lesson(stack: Stack,
                                                                       agent_token: str):
    task = f"task-{uuid.uuid4().hex[:6]}"
    async with mcp_client(stack.mcp_url, agent_token) as client:
        first = await call(client, "outcome_record", {"task": task, "outcome": "correction",
                                                      "detail": "use the staging token"})
        again = await call(client, "outcome_record", {"task": task, "outcome": "correction",
                                                      "detail": "use the staging token"})
        assert again["lesson"]["id"] == first["lesson"]["id"]
        assert again["lesson"]["signals"] == 2 and again["lesson"]["subject_fact_ids"] == []


async def test_memory_search_serves_matching_world_and_event_facts(stack: Stack,
                                                                   agent_token: str):
    """One search answers from every layer that matches: an EVENT fact in
    `facts` (labelled as history) and a cited world fact in `world`."""
    lib = f"lib{uuid.uuid4().hex[:6]}"
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "world_set", {
            "entity": lib, "attribute": "license", "value": "apache-2.0",
            "source_url": f"https://pypi.org/project/{lib}",
            "source_quote": f"{lib} is released under the Apache 2.0 license"})
        await call(client, "fact_set", {"entity": lib, "attribute": "upgrade", "kind": "EVENT",
                                        "value": "upgraded to 3.0 in production",
                                        "valid_from": "2025-03-04"})
        found = await call(client, "memory_search", {"query": f"{lib} license upgrade"})
        historical = await call(client, "memory_search", {"query": f"{lib} license",
                                                          "include_history": True})
    [world] = [w for w in found["world"] if w["entity"] == lib]
    assert world["value"] == "apache-2.0" and world["citation"]["url"].endswith(lib)
    [event] = [f for f in found["facts"] if f["entity"] == lib]
    assert event["kind"] == "EVENT" and event["label"] == "history: happened 2025-03-04"
    assert historical["world"] == []  # as the facts block: live facts only
