"""Canonical facts through MCP: the conflict lanes, serving labels, time
travel, tombstones, set-valued slots, review, isolation and bad input."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client, rest_client


def entity() -> str:
    return f"svc-{uuid.uuid4().hex[:8]}"


async def test_correction_holds_on_every_read_path(stack: Stack, agent_token: str):
    e = entity()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        first = await call(client, "fact_set", {
            "entity": e, "attribute": "database", "value": "MySQL 8",
            "evidence_quote": f"{e} uses MySQL 8", "valid_from": "2025-01-01"})
        assert first["action"] == "insert" and first["fact"]["label"] == "current"
        again = await call(client, "fact_set", {"entity": e.upper(), "attribute": "Database",
                                                "value": "mysql 8."})
        assert (again["action"], again["lane"]) == ("confirm", "restatement")
        moved = await call(client, "fact_set", {
            "entity": e, "attribute": "database", "value": "PostgreSQL 16",
            "evidence_quote": f"We moved {e} from MySQL to PostgreSQL 16",
            "valid_from": "2025-06-01"})
        assert (moved["action"], moved["lane"]) == ("supersede", "explicit")
        assert moved["related_id"] == first["fact"]["id"]

        now = await call(client, "fact_get", {"entity": e, "attribute": "database"})
        assert [f["value"] for f in now["current"]] == ["PostgreSQL 16"]
        assert now["label"] == "current"
        then = await call(client, "fact_get", {"entity": e, "attribute": "database",
                                               "as_of": "2025-03-01"})
        assert [f["value"] for f in then["current"]] == ["MySQL 8"]
        assert then["current"][0]["label"].startswith("as of 2025-03-01")
        found = await call(client, "memory_search", {"query": f"{e} database"})
        assert [f["value"] for f in found["facts"] if f["entity"] == e] == ["PostgreSQL 16"]
        assert set(found["facts"][0]) >= {"id", "entity", "attribute", "value", "kind",
                                          "verdict", "label", "evidence_quote", "valid_from"}
        history = await call(client, "fact_history", {"entity": e, "attribute": "database"})
        old, new = history["facts"]
        assert old["verdict"] == "superseded" and old["superseded_by"] == new["id"]
        assert old["valid_to"].startswith("2025-06-01") and old["retired_at"]

        # The retired value is recognised when it comes back, and parked.
        back = await call(client, "fact_set", {"entity": e, "attribute": "database",
                                               "value": "MySQL 8", "replaces": True})
        assert back["action"] == "park" and back["reasserts_retired"] == first["fact"]["id"]
        still = await call(client, "fact_get", {"entity": e, "attribute": "database"})
        assert [f["value"] for f in still["current"]] == ["PostgreSQL 16"]
        assert [f["value"] for f in still["contenders"]] == ["MySQL 8"]
        # Said again, it confirms the parked row instead of parking another.
        again = await call(client, "fact_set", {"entity": e, "attribute": "database",
                                                "value": "MySQL 8", "replaces": True})
        assert again["action"] == "confirm" and again["fact"]["id"] == back["fact"]["id"]
        history = await call(client, "fact_history", {"entity": e, "attribute": "database"})
        assert [f["verdict"] for f in history["facts"]].count("parked") == 1


async def test_paraphrase_confirms_and_contradiction_contests(stack: Stack, agent_token: str,
                                                              admin_dsn: str):
    e = entity()
    reviewer = stack.principals.create(f"rev-{uuid.uuid4().hex[:4]}", "reviewer", ["default"])
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "fact_set", {"entity": e, "attribute": "ci", "value":
                                        "GitHub Actions"})
        same = await call(client, "fact_set", {"entity": e, "attribute": "ci",
                                               "value": "github actions workflows"})
        assert same["action"] == "confirm", same
        other = await call(client, "fact_set", {"entity": e, "attribute": "ci",
                                                "value": "Jenkins",
                                                "evidence_quote": "CI runs on Jenkins"})
        assert (other["action"], other["lane"]) == ("contest", "contested")
        assert "conflict_resolve(conflict_id=" in other["resolve_call"]
        both = await call(client, "fact_get", {"entity": e, "attribute": "ci"})
        assert sorted(f["value"] for f in both["current"]) == ["GitHub Actions", "Jenkins"]
        assert all(f["verdict"] == "contested" and "contested" in f["label"]
                   for f in both["current"])
        found = await call(client, "memory_search", {"query": f"{e} ci"})
        assert sorted(f["value"] for f in found["facts"] if f["entity"] == e) == [
            "GitHub Actions", "Jenkins"]

        # The writing agent cannot settle it; a reviewer can, once.
        err = await call_error(client, "conflict_resolve", {
            "conflict_id": other["conflict_id"], "winner_id": other["fact"]["id"],
            "reasoning": "I think so"})
        assert "reviewer role" in err
        async with mcp_client(stack.mcp_url, reviewer) as rev:
            listed = await call(rev, "conflict_list", {})
            assert other["conflict_id"] in [c["id"] for c in listed["conflicts"]]
            settled = await call(rev, "conflict_resolve", {
                "conflict_id": other["conflict_id"], "winner_id": other["fact"]["id"],
                "reasoning": "the pipeline moved in May"})
            assert settled["conflict"]["status"] == "resolved"
            err = await call_error(rev, "conflict_resolve", {
                "conflict_id": other["conflict_id"], "both_stand": True,
                "reasoning": "changed my mind"})
            assert "already resolved" in err
        now = await call(client, "fact_get", {"entity": e, "attribute": "ci"})
        assert [(f["value"], f["label"]) for f in now["current"]] == [("Jenkins", "current")]
    audited = await admin_fetchval(
        admin_dsn, "SELECT array_agg(action ORDER BY id) FROM cortex.audit WHERE subject = $1 "
        "OR detail->>'slot' = $2", other["conflict_id"], f"{e}.ci")
    assert audited == ["fact.insert", "fact.contest", "conflict.resolve"]


async def test_rules_never_auto_resolve_and_tiers_park(stack: Stack, agent_token: str):
    e = entity()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "fact_set", {"entity": e, "attribute": "force_push", "kind": "RULE",
                                        "value": "never force-push to main"})
        rule = await call(client, "fact_set", {
            "entity": e, "attribute": "force_push", "kind": "RULE",
            "value": "force-push to main is allowed for release managers", "replaces": True})
        assert (rule["action"], rule["lane"]) == ("contest", "rule")

        await call(client, "fact_set", {"entity": e, "attribute": "owner", "value": "alice",
                                        "origin": "user"})
        weaker = await call(client, "fact_set", {"entity": e, "attribute": "owner",
                                                 "value": "bob", "origin": "assistant",
                                                 "replaces": True})
        assert (weaker["action"], weaker["lane"]) == ("park", "origin_tier")
        owner = await call(client, "fact_get", {"entity": e, "attribute": "owner"})
        assert [f["value"] for f in owner["current"]] == ["alice"]
        assert [f["verdict"] for f in owner["contenders"]] == ["parked"]


async def test_labels_for_events_and_stale_states(stack: Stack, agent_token: str):
    e = entity()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "fact_set", {"entity": e, "attribute": "outage", "kind": "EVENT",
                                        "value": "database failover", "valid_from": "2025-03-04"})
        event = await call(client, "fact_get", {"entity": e, "attribute": "outage"})
        assert event["current"][0]["label"] == "history: happened 2025-03-04"
        await call(client, "fact_set", {
            "entity": e, "attribute": "build", "value": "green", "valid_from": "2025-01-02",
            "details": {"expected_lifetime_seconds": 3600, "status_detail": "main branch"}})
        build = await call(client, "fact_get", {"entity": e, "attribute": "build",
                                                "verbose": True})
        assert build["current"][0]["label"] == "last known as of 2025-01-02, unverified since"
        assert build["current"][0]["details"]["status_detail"] == "main branch"


async def test_sets_and_retraction(stack: Stack, agent_token: str):
    e = entity()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        for member in ("alice", "bob", "carol"):
            added = await call(client, "set_add", {"entity": e, "attribute": "members",
                                                   "member": member})
            assert added["action"] == "insert"
        assert (await call(client, "set_add", {"entity": e, "attribute": "members",
                                               "member": "Bob"}))["action"] == "confirm"
        before_removal = datetime.now(UTC).isoformat()
        await asyncio.sleep(0.05)
        removed = await call(client, "set_remove", {"entity": e, "attribute": "members",
                                                    "member": "bob", "reason": "left"})
        assert removed["members"] == 2
        team = await call(client, "fact_get", {"entity": e, "attribute": "members"})
        assert team["set_valued"] and sorted(f["value"] for f in team["current"]) == [
            "alice", "carol"]
        then = await call(client, "fact_get", {"entity": e, "attribute": "members",
                                               "as_of": before_removal})
        assert sorted(f["value"] for f in then["current"]) == ["alice", "bob", "carol"]
        err = await call_error(client, "fact_set", {"entity": e, "attribute": "members",
                                                    "value": "dave"})
        assert "set-valued slot" in err
        back = await call(client, "set_add", {"entity": e, "attribute": "members",
                                              "member": "bob"})
        assert back["action"] == "park" and back["reasserts_retired"]

        await call(client, "fact_set", {"entity": e, "attribute": "region",
                                        "value": "eu-west-1"})
        gone = await call(client, "fact_retract", {"entity": e, "attribute": "region",
                                                   "reason": "it was never there"})
        assert gone["retracted"] == 1
        empty = await call(client, "fact_get", {"entity": e, "attribute": "region"})
        assert empty["current"] == [] and empty["label"] == "no fact in this slot"
        found = await call(client, "memory_search", {"query": f"{e} region eu-west-1"})
        assert all(f["entity"] != e or f["attribute"] != "region" for f in found["facts"])


async def test_aliases_resolve_first(stack: Stack, agent_token: str):
    e = entity()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "fact_set", {"entity": e, "attribute": "language",
                                        "value": "Python"})
        await call(client, "alias_add", {"entity": e, "alias": f"{e}-legacy"})
        via_alias = await call(client, "fact_get", {"entity": f"{e}-legacy",
                                                    "attribute": "language"})
        assert [f["value"] for f in via_alias["current"]] == ["Python"]
        confirm = await call(client, "fact_set", {"entity": f"{e}-legacy",
                                                  "attribute": "language", "value": "python"})
        assert confirm["action"] == "confirm"


async def test_fact_bad_input_writes_nothing(stack: Stack, agent_token: str, admin_dsn: str):
    e = entity()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        cases = [
            ({"entity": e, "attribute": "a", "value": "v", "kind": "OPINION"}, "kind"),
            ({"entity": "  ", "attribute": "a", "value": "v"}, "entity is empty"),
            ({"entity": e, "attribute": "a", "value": "v" * 2001}, "the limit is 2000"),
            ({"entity": e, "attribute": "a", "value": " "}, "value must not be empty"),
            ({"entity": e, "attribute": "a", "value": "v", "details": {"risk_weight": 0.5}},
             "risk_weight belongs to RESIDUAL"),
            ({"entity": e, "attribute": "a", "value": "v", "details": {"colour": "red"}},
             "unknown detail 'colour'"),
            ({"entity": e, "attribute": "a", "value": "v", "source_type": "rumour"},
             "source_type must be one of"),
            ({"entity": e, "attribute": "a", "value": "v", "supersedes": "nope"},
             "supersedes must be an id"),
            ({"entity": e, "attribute": "a", "value": "v", "valid_from": "yesterday"},
             "ISO-8601"),
        ]
        for args, expected in cases:
            assert expected in await call_error(client, "fact_set", args), args
        err = await call_error(client, "fact_retract", {"entity": e, "attribute": "a",
                                                        "reason": "x"})
        assert "no live fact" in err
    written = await admin_fetchval(admin_dsn, "SELECT count(*) FROM cortex.facts "
                                   "WHERE entity = $1", e)
    assert written == 0


async def test_other_namespaces_see_no_facts(stack: Stack, agent_token: str):
    e = entity()
    other = stack.principals.create(f"fx-{uuid.uuid4().hex[:4]}", "agent", ["facts-other"])
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "fact_set", {"entity": e, "attribute": "secret_sauce",
                                        "value": "paprika"})
    async with mcp_client(stack.mcp_url, other) as stranger:
        got = await call(stranger, "fact_get", {"entity": e, "attribute": "secret_sauce"})
        assert got["current"] == []
        found = await call(stranger, "memory_search", {"query": f"{e} secret sauce paprika"})
        assert found["facts"] == []
        assert (await call(stranger, "fact_history", {"entity": e}))["facts"] == []


async def test_thin_fact_layer_falls_through_to_entries(stack: Stack, agent_token: str):
    e = entity()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "memory_store", {"text": f"The {e} pager rotation is weekly."})
        got = await call(client, "fact_get", {"entity": e, "attribute": "pager rotation"})
        assert got["current"] == [] and got["layer"] == "entries"
        assert any(e in entry["text"] for entry in got["fallback"]["entries"])
        assert "not a canonical fact" in got["fallback"]["label"]
        await call(client, "fact_set", {"entity": e, "attribute": "pager rotation",
                                        "value": "weekly"})
        got = await call(client, "fact_get", {"entity": e, "attribute": "pager rotation"})
        assert got["layer"] == "facts" and "fallback" not in got


async def test_fact_set_is_no_oracle_for_host_paths(stack: Stack, agent_token: str):
    """A value naming a path on the cortex host decides nothing: an existing
    host path and a missing one get the same lane and the same reply shape."""
    existing = "/etc/passwd"  # on the host the stack runs on (the test's own)
    missing = f"/etc/no-such-file-{uuid.uuid4().hex}"
    replies = []
    async with mcp_client(stack.mcp_url, agent_token) as client:
        for new in (existing, missing):
            e = entity()
            await call(client, "fact_set", {"entity": e, "attribute": "config_path",
                                            "value": f"/tmp/gone-{uuid.uuid4().hex}",
                                            "kind": "REFERENCE"})
            replies.append(await call(client, "fact_set", {
                "entity": e, "attribute": "config_path", "value": new, "kind": "REFERENCE"}))
    hit, miss = replies
    assert (hit["action"], hit["lane"]) == (miss["action"], miss["lane"]) == \
        ("contest", "contested")
    assert sorted(hit) == sorted(miss)
    assert hit["note"] == miss["note"]
    assert sorted(hit["fact"]) == sorted(miss["fact"])
    assert hit["fact"]["verdict"] == miss["fact"]["verdict"]


async def test_kind_column_refusals_are_one_rule_over_mcp_and_rest(stack: Stack,
                                                                   agent_token: str,
                                                                   admin_dsn: str):
    """The gateway refuses another kind's column, a column given two ways, an
    out-of-range lifetime, a name or tag the cortex cannot keep: the same
    words over MCP and REST (a 422 naming the field and the kind), nothing
    written."""
    e = entity()
    base = {"entity": e, "attribute": "a", "value": "v"}
    cases = [
        ({"reopen_trigger": "if p95 passes 200 ms"},
         "reopen_trigger belongs to DECISION facts, not STATE"),
        ({"kind": "EVENT", "details": {"earned_by": "the outage"}},
         "earned_by belongs to RULE/PREFERENCE facts, not EVENT"),
        ({"kind": "DECISION", "reopen_trigger": "x", "details": {"reopen_trigger": "x"}},
         "reopen_trigger is given twice"),
        ({"details": {"expected_lifetime_seconds": 10**14}},
         "expected_lifetime_seconds must be 0-3153600000 seconds"),
        ({"attribute": "-_-"}, "attribute is empty after normalisation"),
        ({"tags": ["lang.-python"]}, "malformed tag 'lang.-python'"),
    ]
    headers = {"Authorization": f"Bearer {agent_token}"}
    async with mcp_client(stack.mcp_url, agent_token) as client, \
            rest_client(stack, headers) as http:
        for args, words in cases:
            assert words in await call_error(client, "fact_set", base | args), args
            r = await http.post("/v1/facts", json=base | args)
            assert r.status_code == 422 and words in r.text, (args, r.status_code, r.text)
    written = await admin_fetchval(admin_dsn, "SELECT count(*) FROM cortex.facts "
                                   "WHERE entity = $1", e)
    assert written == 0
