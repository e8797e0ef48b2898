"""Memory lifecycle through MCP: updates, conflicts, supersede, forget,
reinforce, get, recent, as_of and history reads."""

from __future__ import annotations

from datetime import UTC, datetime

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client


async def test_correction_supersedes_and_history_stays_readable(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        old = await call(client, "memory_store",
                         {"text": "The payments API rate limit is 100 requests per second."})
        between = datetime.now(UTC).isoformat()
        new = await call(client, "memory_store", {
            "text": "Correction: the payments API rate limit is now 250 requests per second."})
        current = await call(client, "memory_search", {"query": "payments API rate limit"})
        history = await call(client, "memory_search", {"query": "payments API rate limit",
                                                       "include_history": True})
        then = await call(client, "memory_search", {"query": "payments API rate limit",
                                                    "as_of": between})
        detail = await call(client, "memory_get", {"id": old["id"]})
    assert new["embedded"] and old["embedded"]
    assert new["finding"] == "update" and new["superseded"] == [old["id"]]
    ids = [e["id"] for e in current["entries"]]
    assert new["id"] in ids and old["id"] not in ids
    labels = {e["id"]: e["label"] for e in history["entries"]}
    assert labels[old["id"]] == f"superseded by {new['id']}"
    assert labels[new["id"]] == "current"
    then_ids = [e["id"] for e in then["entries"]]
    assert old["id"] in then_ids and new["id"] not in then_ids
    assert detail["label"].startswith("superseded") and detail["superseded_by"] == new["id"]
    assert [v["status"] for v in detail["versions"]] == ["live", "superseded"]
    assert {"src": new["id"], "dst": old["id"], "kind": "supersedes"} in detail["links"]


async def test_genuine_conflict_keeps_both_and_labels_them(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        first = await call(client, "memory_store",
                           {"text": "The nightly backup job runs at 02:00 UTC on db-main."})
        second = await call(client, "memory_store",
                            {"text": "The nightly backup job runs at 04:00 UTC on db-main."})
        found = await call(client, "memory_search", {"query": "when does the nightly backup run"})
    assert second["finding"] == "conflict"
    assert second["contested_with"] == [first["id"]] and second["superseded"] == []
    served = {e["id"]: e for e in found["entries"]}
    assert served[first["id"]]["label"] == "contested"
    assert served[second["id"]]["label"] == "contested"
    assert served[first["id"]]["contested_with"] == [second["id"]]


async def test_similar_but_different_subjects_are_not_conflicts(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        a = await call(client, "memory_store", {"text": "Sensor 3 reported 41 degrees."})
        b = await call(client, "memory_store", {"text": "Sensor 4 reported 58 degrees."})
    assert b["finding"] in ("new", "paraphrase") and b["superseded"] == []
    assert a["id"] != b["id"]


async def test_supersede_fails_closed(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        old = await call(client, "memory_store", {"text": "The team standup is at 09:30."})
        new = await call(client, "memory_supersede", {"entry_id": old["id"], "reason": "moved",
                                                      "new_text": "The team standup is at 10:00."})
        again = await call_error(client, "memory_supersede", {
            "entry_id": old["id"], "new_text": "The team standup is at 11:00."})
        missing = await call_error(client, "memory_supersede", {
            "entry_id": "00000000-0000-4000-8000-000000000000", "new_text": "x"})
        malformed = await call_error(client, "memory_supersede",
                                     {"entry_id": "yesterday", "new_text": "x"})
    assert new["superseded"] == [old["id"]]
    assert f"already superseded by {new['id']}" in again
    assert "does not exist" in missing
    assert "must be an entry id" in malformed


async def test_forget_removes_everywhere_and_is_remembered(stack: Stack, agent_token: str,
                                                           admin_dsn: str):
    secret = "The intern's home address is 12 Elm Street."
    async with mcp_client(stack.mcp_url, agent_token) as client:
        stored = await call(client, "memory_store", {"text": secret, "tags": ["pii"]})
        forgot = await call(client, "memory_forget", {"entry_id": stored["id"],
                                                      "reason": "personal data"})
        found = await call(client, "memory_search", {"query": "intern home address Elm Street",
                                                     "include_history": True})
        recent = await call(client, "memory_recent", {"n": 50})
        gone = await call_error(client, "memory_get", {"id": stored["id"]})
        again = await call(client, "memory_store", {"text": secret})
    assert forgot["forgotten"] == [stored["id"]] and len(forgot["tombstones"]) == 1
    assert stored["id"] not in [e["id"] for e in found["entries"]]
    assert stored["id"] not in [e["id"] for e in recent["entries"]]
    assert "was forgotten" in gone and "personal data" in gone
    assert again["reasserts_forgotten"]["reason"] == "personal data"
    assert await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM memory.entries WHERE id = $1::uuid", stored["id"]) == 0


async def test_forgetting_either_side_of_a_supersede_pair(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        a = await call(client, "memory_store", {"text": "The build server is ci-old-01."})
        b = await call(client, "memory_supersede", {"entry_id": a["id"],
                                                    "new_text": "The build server is ci-new-02."})
        await call(client, "memory_forget", {"entry_id": b["id"], "reason": "test"})
        survivor = await call(client, "memory_get", {"id": a["id"]})
        c = await call(client, "memory_store", {"text": "The cache host is cache-a."})
        d = await call(client, "memory_supersede", {"entry_id": c["id"],
                                                    "new_text": "The cache host is cache-b."})
        await call(client, "memory_forget", {"entry_id": c["id"], "reason": "test"})
        kept = await call(client, "memory_get", {"id": d["id"]})
    assert survivor["superseded_by"] is None  # pointer nulled, row kept as history
    assert kept["label"] == "current"


async def test_forget_by_filter_needs_a_filter(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        for i in range(3):
            await call(client, "memory_store", {"text": f"Scratch note {i} about tmp files.",
                                                "tags": ["scratch"]})
        refused = await call_error(client, "memory_forget", {"reason": "cleanup"})
        done = await call(client, "memory_forget", {"tags": ["scratch"], "reason": "cleanup"})
        left = await call(client, "memory_recent", {"n": 50, "tags": ["scratch"]})
    assert "at least one filter" in refused
    assert len(done["forgotten"]) == 3 and left["entries"] == []


async def test_reinforce_and_recent(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        entry = await call(client, "memory_store", {"text": "Use ruff, not flake8, in this repo.",
                                                    "tags": ["tooling"]})
        first = await call(client, "memory_reinforce", {"entry_id": entry["id"]})
        second = await call(client, "memory_reinforce", {"entry_id": entry["id"]})
        recent = await call(client, "memory_recent", {"n": 1, "tags": ["tooling"]})
        newer = await call(client, "memory_supersede", {
            "entry_id": entry["id"], "new_text": "Use ruff and ruff format in this repo."})
        retired = await call_error(client, "memory_reinforce", {"entry_id": entry["id"]})
    assert (first["confirmations"], second["confirmations"]) == (1, 2)
    assert recent["entries"][0]["id"] == entry["id"]
    assert newer["superseded"] == [entry["id"]]
    assert "superseded, not live" in retired
