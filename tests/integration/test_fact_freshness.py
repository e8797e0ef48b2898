"""Fact freshness and the kind columns through MCP: a verification (a
confirm or fact_verify) restarts a STATE's lifetime; a fact whose evidence
entry was superseded or contested is served with re_verify and why; a
DECISION's reopen_trigger and a RULE's earned_by round-trip, and another
kind's use of them is refused."""

from __future__ import annotations

import uuid
from typing import Any

from mcp import Client

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, eventually, mcp_client

LONG_AGO = "2020-01-01T00:00:00Z"
HOUR = {"expected_lifetime_seconds": 3600}


def names() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"fresh-{tag}", f"svc-{tag}"


async def current(client: Client, ns: str, entity: str, attribute: str,
                  verbose: bool = False) -> list[dict[str, Any]]:
    got = await call(client, "fact_get", {"entity": entity, "attribute": attribute,
                                          "namespace": ns, "verbose": verbose})
    return got["current"]


async def test_a_verified_state_is_fresh_again(stack: Stack, admin_dsn: str):
    ns, e = names()
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        written = await call(client, "fact_set", {
            "entity": e, "attribute": "status", "value": "degraded", "namespace": ns,
            "valid_from": LONG_AGO, "details": HOUR})
        assert written["fact"]["label"] == "last known as of 2020-01-01, unverified since"
        [before] = await current(client, ns, e, "status", verbose=True)
        assert before["last_verified_at"] is None

        verified = await call(client, "fact_verify", {"entity": e, "attribute": "status",
                                                      "namespace": ns})
        [fact] = verified["facts"]
        assert fact["id"] == written["fact"]["id"] and fact["label"] == "current"
        [after] = await current(client, ns, e, "status", verbose=True)
        assert after["label"] == "current" and after["last_verified_at"]
        assert after["valid_from"].startswith("2020-01-01")  # world time untouched
        audited = await admin_fetchval(
            admin_dsn, "SELECT count(*) FROM cortex.audit WHERE namespace = $1 "
            "AND action = 'fact.verify' AND subject = $2", ns, fact["id"])
        assert audited == 1
        again = await call(client, "fact_verify", {"entity": e, "attribute": "status",
                                                   "namespace": ns})
        assert [f["id"] for f in again["facts"]] == [fact["id"]]

        # A restatement through fact_set is a verification too.
        await call(client, "fact_set", {"entity": e, "attribute": "region", "value": "eu-west-1",
                                        "namespace": ns, "valid_from": LONG_AGO,
                                        "details": HOUR})
        [stale] = await current(client, ns, e, "region")
        assert stale["label"].startswith("last known as of 2020-01-01")
        confirmed = await call(client, "fact_set", {"entity": e, "attribute": "region",
                                                    "value": "EU-West-1", "namespace": ns})
        assert confirmed["action"] == "confirm"
        [fresh] = await current(client, ns, e, "region", verbose=True)
        assert fresh["label"] == "current" and fresh["last_verified_at"]


async def test_fact_verify_refuses_what_it_cannot_verify(stack: Stack, admin_dsn: str):
    ns, e = names()
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    reader = stack.principals.create(f"ro-{ns}", "agent", [], [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "fact_set", {"entity": e, "attribute": "owner", "value": "team-a",
                                        "namespace": ns})
        unknown = await call_error(client, "fact_verify", {"entity": e, "attribute": "nothing",
                                                           "namespace": ns})
        assert f"no current fact in {e}.nothing" in unknown
        empty = await call_error(client, "fact_verify", {"entity": "  ", "attribute": "owner",
                                                         "namespace": ns})
        assert "entity is empty" in empty
        missing = await call_error(client, "fact_verify", {"entity": e, "namespace": ns})
        assert "attribute" in missing
        await call(client, "fact_set", {"entity": e, "attribute": "owner", "value": "team-b",
                                        "namespace": ns})  # contested now
        contested = await call_error(client, "fact_verify", {"entity": e, "attribute": "owner",
                                                             "namespace": ns})
        assert "contested" in contested and "conflict_resolve" in contested
    async with mcp_client(stack.mcp_url, reader) as client:
        refused = await call_error(client, "fact_verify", {"entity": e, "attribute": "owner",
                                                           "namespace": ns})
        assert "read-only access" in refused
    audited = await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM cortex.audit WHERE namespace = $1 "
        "AND action = 'fact.verify'", ns)
    stamped = await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM cortex.facts WHERE namespace = $1 "
        "AND last_verified_at IS NOT NULL", ns)
    assert (audited, stamped) == (0, 0)


async def _re_verify(client: Client, ns: str, entity: str, attribute: str) -> str:
    found: list[str] = []

    async def flagged() -> bool:
        [fact] = await current(client, ns, entity, attribute)
        found[:] = [fact.get("re_verify", "")]
        return bool(found[0])

    await eventually(flagged, what=f"re_verify on {entity}.{attribute}")
    return found[0]


async def test_changed_evidence_asks_to_re_verify(stack: Stack):
    ns, e = names()
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        entry = await call(client, "memory_store", {
            "text": f"{e} stores its sessions in Redis 7.", "namespace": ns})
        await call(client, "fact_set", {
            "entity": e, "attribute": "session_store", "value": "Redis 7", "namespace": ns,
            "source_type": "memory_entry", "source_ref": entry["id"],
            "evidence_quote": f"{e} stores its sessions in Redis 7."})
        [fact] = await current(client, ns, e, "session_store")
        assert "re_verify" not in fact
        newer = await call(client, "memory_supersede", {
            "entry_id": entry["id"], "new_text": f"{e} stores its sessions in Valkey 8.",
            "reason": "migrated", "namespace": ns})
        reason = await _re_verify(client, ns, e, "session_store")
        assert f"memory entry {entry['id']}, was superseded by entry {newer['id']}" in reason
        found = await call(client, "memory_search", {"query": f"{e} session store",
                                                     "namespace": ns})
        assert [f.get("re_verify") for f in found["facts"] if f["entity"] == e] == [reason]

        # Checked and still true (or set anew): a verification clears it.
        await call(client, "fact_verify", {"entity": e, "attribute": "session_store",
                                           "namespace": ns})
        [cleared] = await current(client, ns, e, "session_store")
        assert "re_verify" not in cleared

        # A contradicting entry flags the facts that cite the entry it contests.
        first = await call(client, "memory_store", {
            "text": f"The nightly backup job of {e} runs at 02:00 UTC.", "namespace": ns})
        await call(client, "fact_set", {
            "entity": e, "attribute": "backup_time", "value": "02:00 UTC", "namespace": ns,
            "source_type": "memory_entry", "source_ref": first["id"]})
        second = await call(client, "memory_store", {
            "text": f"The nightly backup job of {e} runs at 04:00 UTC.", "namespace": ns})
        assert second["contested_with"] == [first["id"]]
        reason = await _re_verify(client, ns, e, "backup_time")
        assert f"was contested by entry {second['id']}" in reason


async def test_reopen_trigger_and_earned_by_belong_to_their_kinds(stack: Stack,
                                                                  admin_dsn: str):
    ns, e = names()
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        decided = await call(client, "fact_set", {
            "entity": e, "attribute": "queue", "value": "SQS", "kind": "DECISION",
            "reopen_trigger": "if message volume passes 10k/s", "namespace": ns})
        assert decided["fact"]["reopen_trigger"] == "if message volume passes 10k/s"
        rule = await call(client, "fact_set", {
            "entity": e, "attribute": "deploys", "value": "never deploy on Fridays",
            "kind": "RULE", "earned_by": "the 2026-03-13 outage", "namespace": ns})
        assert rule["fact"]["earned_by"] == "the 2026-03-13 outage"
        via_details = await call(client, "fact_set", {
            "entity": e, "attribute": "db", "value": "Postgres", "kind": "DECISION",
            "details": {"reopen_trigger": "when the dataset passes 1 TB"}, "namespace": ns})
        assert via_details["fact"]["reopen_trigger"] == "when the dataset passes 1 TB"

        [d] = await current(client, ns, e, "queue", verbose=True)
        assert d["details"] == {"reopen_trigger": "if message volume passes 10k/s"}
        [r] = await current(client, ns, e, "deploys", verbose=True)
        assert r["details"] == {"earned_by": "the 2026-03-13 outage"}
        history = await call(client, "fact_history", {"entity": e, "namespace": ns})
        assert {f["attribute"]: f["details"] for f in history["facts"]} == {
            "db": {"reopen_trigger": "when the dataset passes 1 TB"},
            "deploys": {"earned_by": "the 2026-03-13 outage"},
            "queue": {"reopen_trigger": "if message volume passes 10k/s"}}

        wrong = await call_error(client, "fact_set", {
            "entity": e, "attribute": "load", "value": "high", "kind": "STATE",
            "reopen_trigger": "tomorrow", "namespace": ns})
        assert "reopen_trigger belongs to DECISION facts, not STATE" in wrong
        wrong = await call_error(client, "fact_set", {
            "entity": e, "attribute": "load", "value": "high", "kind": "DECISION",
            "earned_by": "an incident", "namespace": ns})
        assert "earned_by belongs to RULE/PREFERENCE facts, not DECISION" in wrong
        twice = await call_error(client, "fact_set", {
            "entity": e, "attribute": "load", "value": "high", "kind": "DECISION",
            "reopen_trigger": "a", "details": {"reopen_trigger": "b"}, "namespace": ns})
        assert "reopen_trigger is given twice" in twice
        too_long = await call_error(client, "fact_set", {
            "entity": e, "attribute": "load", "value": "high", "kind": "DECISION",
            "reopen_trigger": "x" * 1001, "namespace": ns})
        assert "reopen_trigger is 1001 characters; the limit is 1000" in too_long
    written = await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM cortex.facts WHERE namespace = $1 "
        "AND attribute = 'load'", ns)
    assert written == 0
