"""Client retries are part of the product: a write retried after a lost reply,
with the same request_id, takes effect once (issue 19). Rows are counted as
the admin, past the services."""

from __future__ import annotations

import uuid

import httpx

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client


async def _twice(client, tool: str, args: dict) -> dict:
    first = await call(client, tool, args)
    again = await call(client, tool, args)  # the retry of a call whose reply was lost
    assert again == first, f"{tool}: the retry got another reply"
    return first


async def test_retried_writes_with_a_request_id_take_effect_once(stack: Stack, admin_dsn: str):
    ns = f"retry-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    count = lambda sql: admin_fetchval(admin_dsn, sql, ns)  # noqa: E731
    async with mcp_client(stack.mcp_url, token) as client:
        await _twice(client, "outcome_record", {
            "task": "deploy billing", "outcome": "failure", "detail": "forgot migrations",
            "request_id": "o-1"})
        assert await count("SELECT count(*) FROM cortex.outcomes WHERE namespace = $1") == 1

        episode = await _twice(client, "episode_start", {"title": "fix login",
                                                         "request_id": "e-1"})
        assert await count("SELECT count(*) FROM memory.episodes WHERE namespace = $1 "
                           "AND parent_id IS NOT NULL") == 1
        outer = await call(client, "episode_start", {"title": "release"})
        inner = await call(client, "episode_start", {"title": "fix login"})
        # a retried end must not end the enclosing episode too
        assert (await _twice(client, "episode_end", {"request_id": "x-1"}))["id"] == inner["id"]
        assert (await call(client, "episode_end", {}))["id"] == outer["id"]
        assert (await call(client, "episode_end", {}))["id"] == episode["id"]

        stored = await _twice(client, "memory_store", {
            "text": "The VPN needs the staging cert.", "request_id": "s-1"})
        assert stored["finding"] == "new", "the retry is answered, not a restatement"
        entry = stored
        reinforced = await _twice(client, "memory_reinforce", {"entry_id": entry["id"],
                                                               "request_id": "r-1"})
        assert reinforced["confirmations"] == 1
        assert await count("SELECT confirmations FROM memory.entries WHERE namespace = $1") == 1
        assert await count("SELECT array_agg(action ORDER BY id) FROM memory.audit "
                           "WHERE namespace = $1 AND action LIKE 'entry.%'") == [
            "entry.store", "entry.reinforce"]

        fact = {"entity": "vpn", "attribute": "cert", "value": "staging", "request_id": "f-1"}
        await _twice(client, "fact_set", fact)
        assert await count("SELECT array_agg(action ORDER BY id) FROM cortex.audit "
                           "WHERE namespace = $1") == ["outcome.record", "fact.insert"]

        # a key reused for another request is refused, naming the fix
        error = await call_error(client, "fact_set", {**fact, "value": "prod"})
        assert "was used for a different request" in error and "new key" in error
        # without a key, a retry is a second call: a second signal for the lesson
        for _ in range(2):
            await call(client, "outcome_record", {"task": "deploy billing",
                                                  "outcome": "failure",
                                                  "detail": "forgot migrations"})
        assert await count("SELECT count(*) FROM cortex.outcomes WHERE namespace = $1") == 3


async def test_request_ids_are_per_principal(stack: Stack, admin_dsn: str):
    ns = f"retry-{uuid.uuid4().hex[:6]}"
    a = stack.principals.create(f"a-{ns}", "agent", [ns])
    b = stack.principals.create(f"b-{ns}", "agent", [ns])
    args = {"task": "rotate keys", "outcome": "success", "request_id": "same"}
    async with mcp_client(stack.mcp_url, a) as ca, mcp_client(stack.mcp_url, b) as cb:
        first = await call(ca, "outcome_record", args)
        second = await call(cb, "outcome_record", args)
    assert first["outcome_id"] != second["outcome_id"]
    async with mcp_client(stack.mcp_url, a) as ca:
        for bad in ("x" * 129, "caf\u00e9", "a\nb"):
            assert "request_id is 1-128 printable ASCII characters" in await call_error(
                ca, "outcome_record", {**args, "request_id": bad})


async def test_a_rest_store_retried_with_a_request_id_stores_once(stack: Stack, admin_dsn: str):
    ns = f"retry-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    auth = {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}
    url = stack.mcp_url.removesuffix("/mcp") + "/v1/memories"
    body = {"text": "Billing deploys on Tuesdays.", "request_id": "rest-1"}
    async with httpx.AsyncClient(timeout=30) as http:
        replies = [await http.post(url, json=body, headers=auth) for _ in range(2)]
        reused = await http.post(url, json={**body, "text": "Billing deploys on Fridays."},
                                 headers=auth)
    assert [r.status_code for r in replies] == [200, 200], replies[0].text
    assert replies[0].json() == replies[1].json()
    assert reused.status_code == 409 and "different request" in reused.text
    assert await admin_fetchval(admin_dsn, "SELECT count(*) FROM memory.audit WHERE "
                                "namespace = $1 AND action LIKE 'entry.%'", ns) == 1
