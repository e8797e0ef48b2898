"""The correct/retire/erase tools over MCP against the real stack: each one's
happy path, its refusals (wrong role, read-only grant, unknown id, bad input)
and its audit rows, which name what was done and never hold the content."""

from __future__ import annotations

import secrets
import uuid
from contextlib import AsyncExitStack

import httpx

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client
from ..procs import service_process
from .test_board_mail import join
from .test_forget_privacy import engram, rows_as_text

NO_ID = "00000000-0000-0000-0000-000000000000"


def marker() -> str:
    return f"zq{secrets.token_hex(8)}"


def principals(stack: Stack, ns: str) -> dict[str, str]:
    tag = uuid.uuid4().hex[:6]
    return {"agent": stack.principals.create(f"lt-a-{tag}", "agent", [ns]),
            "reader": stack.principals.create(f"lt-r-{tag}", "operator", [], [ns]),
            "reviewer": stack.principals.create(f"lt-v-{tag}", "reviewer", [ns]),
            "operator": stack.principals.create(f"lt-o-{tag}", "operator", [ns])}


async def audit_of(admin_dsn: str, schema: str, ns: str, action: str) -> str:
    return await rows_as_text(admin_dsn, f"SELECT * FROM {schema}.audit WHERE namespace = $1 "
                              "AND action = $2", ns, action)


async def test_document_forget(stack: Stack, admin_dsn: str):
    ns, word = f"lt-{uuid.uuid4().hex[:6]}", marker()
    who = principals(stack, ns)
    # Erasing for good needs the erase grant: a reviewer's, not an agent's.
    async with mcp_client(stack.mcp_url, who["agent"]) as agent:
        assert "needs the erase grant" in await call_error(agent, "document_forget", {
            "document_id": NO_ID, "reason": "x", "namespace": ns})
    async with mcp_client(stack.mcp_url, who["reviewer"]) as client:
        doc = await call(client, "document_ingest", {
            "content": f"# Runbook\n\nThe vault opens with {word}.\n", "format": "markdown",
            "source": "runbook.md", "namespace": ns})
        found = await call(client, "document_search", {"query": word, "namespace": ns})
        assert found["documents"]
        done = await call(client, "document_forget", {"document_id": doc["id"],
                                                      "reason": "pasted secret",
                                                      "namespace": ns})
        assert done["document_id"] == doc["id"] and done["chunks"] >= 1
        assert (await call(client, "document_search", {"query": word,
                                                       "namespace": ns}))["documents"] == []
        again = await call_error(client, "document_forget", {"document_id": doc["id"],
                                                             "reason": "x", "namespace": ns})
        assert "was forgotten at" in again and "pasted secret" in again
        assert "does not exist" in await call_error(client, "document_forget", {
            "document_id": NO_ID, "reason": "x", "namespace": ns})
        assert "must be a document id" in await call_error(client, "document_forget", {
            "document_id": "nope", "reason": "x", "namespace": ns})
        assert "reason must not be empty" in await call_error(client, "document_forget", {
            "document_id": NO_ID, "reason": " ", "namespace": ns})
    async with mcp_client(stack.mcp_url, who["reader"]) as client:
        assert "read-only access" in await call_error(client, "document_forget", {
            "document_id": NO_ID, "reason": "x", "namespace": ns})
    assert await admin_fetchval(admin_dsn, "SELECT count(*) FROM memory.document_chunks "
                                "WHERE document_id = $1::uuid", doc["id"]) == 0
    audit = await audit_of(admin_dsn, "memory", ns, "document.forget")
    assert doc["id"] in audit and "pasted secret" in audit and word not in audit


async def test_world_retract_restore_and_erase(stack: Stack, admin_dsn: str):
    ns, word, lib = f"lt-{uuid.uuid4().hex[:6]}", marker(), f"lib{uuid.uuid4().hex[:6]}"
    who = principals(stack, ns)
    slot = {"entity": lib, "attribute": "latest_version", "namespace": ns}
    async with mcp_client(stack.mcp_url, who["agent"]) as client:
        await call(client, "world_set", slot | {
            "value": f"2.0-{word}", "source_url": f"https://pypi.org/project/{lib}",
            "source_quote": f"{lib} 2.0 released"})

        async def served() -> list[str]:
            found = await call(client, "world_search", {"query": f"{lib} latest version",
                                                        "namespace": ns})
            return [f["value"] for f in found["facts"] if f["entity"] == lib]

        assert await served() == [f"2.0-{word}"]
        out = await call(client, "world_retract", slot | {"reason": "wrong citation"})
        assert [f["value"] for f in out["facts"]] == [f"2.0-{word}"] and out["erased"] == 0
        assert await served() == []
        assert "no live world fact" in await call_error(client, "world_retract",
                                                        slot | {"reason": "again"})
        back = await call(client, "world_restore", slot | {"reason": "it was right"})
        assert [f["value"] for f in back["facts"]] == [f"2.0-{word}"]
        assert await served() == [f"2.0-{word}"]
        assert "has a live world fact" in await call_error(client, "world_restore",
                                                           slot | {"reason": "again"})
        assert "reason is 1-500" in await call_error(client, "world_retract",
                                                     slot | {"reason": " "})
        assert "needs the erase grant" in await call_error(
            client, "world_retract", slot | {"reason": "secret", "erase": True})
        async with mcp_client(stack.mcp_url, who["reviewer"]) as rev:
            gone = await call(rev, "world_retract", slot | {"reason": "secret", "erase": True})
        assert gone == {"facts": [], "erased": 1}
        assert "no retracted world fact" in await call_error(client, "world_restore",
                                                             slot | {"reason": "x"})
    async with mcp_client(stack.mcp_url, who["reader"]) as client:
        assert "read-only access" in await call_error(client, "world_retract",
                                                      slot | {"reason": "x"})
    for action in ("world.retract", "world.restore", "world.erase"):
        audit = await audit_of(admin_dsn, "cortex", ns, action)
        assert lib in audit and word not in audit, action


async def test_lesson_retire_restore_and_erase(stack: Stack, admin_dsn: str):
    ns, word = f"lt-{uuid.uuid4().hex[:6]}", marker()
    who = principals(stack, ns)
    task = f"deploy {word}"
    async with mcp_client(stack.mcp_url, who["agent"]) as client:
        made = await call(client, "outcome_record", {
            "task": task, "outcome": "correction", "detail": f"run {word} before upgrade",
            "namespace": ns})
        lesson = made["lesson"]
        args = {"lesson_id": lesson["id"], "namespace": ns}

        async def live() -> list[str]:
            found = await call(client, "lesson_search", {"query": task, "namespace": ns})
            return [x["id"] for x in found["lessons"]]

        assert await live() == [lesson["id"]]
        out = await call(client, "lesson_retire", args | {"reason": "no longer holds"})
        assert out["lesson"]["id"] == lesson["id"] and out["erased"] is False
        assert await live() == []
        assert "already retired" in await call_error(client, "lesson_retire",
                                                     args | {"reason": "again"})
        await call(client, "lesson_restore", args | {"reason": "it holds"})
        assert await live() == [lesson["id"]]
        assert "is live" in await call_error(client, "lesson_restore", args | {"reason": "x"})
        assert "no lesson" in await call_error(client, "lesson_retire", {
            "lesson_id": NO_ID, "reason": "x", "namespace": ns})
        assert "must be a lesson id" in await call_error(client, "lesson_retire", {
            "lesson_id": "nope", "reason": "x", "namespace": ns})
        assert "needs the erase grant" in await call_error(
            client, "lesson_retire", args | {"reason": "secret", "erase": True})
        async with mcp_client(stack.mcp_url, who["reviewer"]) as rev:
            gone = await call(rev, "lesson_retire", args | {"reason": "secret", "erase": True})
        assert gone == {"lesson": None, "erased": True}
        assert "no lesson" in await call_error(client, "lesson_restore", args | {"reason": "x"})
    async with mcp_client(stack.mcp_url, who["reader"]) as client:
        assert "read-only access" in await call_error(client, "lesson_retire",
                                                      args | {"reason": "x"})
    assert await admin_fetchval(admin_dsn, "SELECT count(*) FROM cortex.outcomes "
                                "WHERE namespace = $1", ns) == 0
    for action in ("lesson.retire", "lesson.restore", "lesson.erase"):
        audit = await audit_of(admin_dsn, "cortex", ns, action)
        assert lesson["id"] in audit and word not in audit, action


async def test_fact_forget_leaves_no_history(stack: Stack, admin_dsn: str):
    ns, word = f"lt-{uuid.uuid4().hex[:6]}", marker()
    who = principals(stack, ns)
    slot = {"entity": "side-door", "attribute": "code", "namespace": ns}
    async with mcp_client(stack.mcp_url, who["agent"]) as agent:
        assert "needs the erase grant" in await call_error(agent, "fact_forget",
                                                           slot | {"reason": "x"})
    async with mcp_client(stack.mcp_url, who["reviewer"]) as client:
        await call(client, "fact_set", slot | {"value": f"old-{word}"})
        await call(client, "fact_set", slot | {"value": word, "replaces": True})
        await call(client, "fact_retract", slot | {"reason": "leaked"})
        # A retraction keeps the value as history: not an erasure.
        history = await call(client, "fact_history", slot)
        assert word in str(history)
        done = await call(client, "fact_forget", slot | {"reason": "secret"})
        assert len(done["erased"]) == 2
        assert (await call(client, "fact_history", slot))["facts"] == []
        assert "no fact in side-door.code" in await call_error(client, "fact_forget",
                                                               slot | {"reason": "again"})
        assert "reason is 1-500" in await call_error(client, "fact_forget",
                                                     slot | {"reason": ""})
    async with mcp_client(stack.mcp_url, who["reader"]) as client:
        assert "read-only access" in await call_error(client, "fact_forget",
                                                      slot | {"reason": "x"})
    assert await admin_fetchval(admin_dsn, "SELECT count(*) FROM cortex.tombstones "
                                "WHERE namespace = $1", ns) == 0
    audit = await audit_of(admin_dsn, "cortex", ns, "fact.erase")
    assert "side-door.code" in audit and word not in audit


async def test_contender_decide_accept_and_discard(stack: Stack, admin_dsn: str):
    ns = f"lt-{uuid.uuid4().hex[:6]}"
    who = principals(stack, ns)
    slot = {"entity": "billing", "attribute": "owner", "namespace": ns}
    async with mcp_client(stack.mcp_url, who["agent"]) as agent, \
            mcp_client(stack.mcp_url, who["reviewer"]) as reviewer:
        alice = await call(agent, "fact_set", slot | {"value": "alice", "origin": "user"})
        bob = await call(agent, "fact_set", slot | {"value": "bob", "origin": "assistant",
                                                    "replaces": True})
        assert bob["action"] == "park"
        listed = await call(reviewer, "review_list", {"kind": "contender", "namespace": ns})
        [item] = listed["items"]
        assert item["kind"] == "contender" and "'bob'" in item["summary"]
        assert f"contender_decide(fact_id='{bob['fact']['id']}'" in item["decide_call"]
        assert [i["kind"] for i in (await call(reviewer, "review_list",
                                               {"namespace": ns}))["items"]] == ["contender"]
        decide = {"fact_id": bob["fact"]["id"], "namespace": ns}
        assert "needs the reviewer role; you are agent" in await call_error(
            agent, "contender_decide", decide | {"decision": "accept", "reasoning": "r"})
        assert "reasoning is 1-2000" in await call_error(
            reviewer, "contender_decide", decide | {"decision": "accept", "reasoning": " "})
        assert "no fact" in await call_error(reviewer, "contender_decide", {
            "fact_id": NO_ID, "decision": "accept", "reasoning": "r", "namespace": ns})
        await call_error(reviewer, "contender_decide", decide | {"decision": "maybe",
                                                                 "reasoning": "r"})
        out = await call(reviewer, "contender_decide",
                         decide | {"decision": "accept", "reasoning": "bob took over"})
        assert out["superseded"] == [alice["fact"]["id"]]
        current = await call(agent, "fact_get", slot)
        assert [f["value"] for f in current["current"]] == ["bob"]
        assert "not a parked contender" in await call_error(
            reviewer, "contender_decide", decide | {"decision": "discard", "reasoning": "r"})

        slot = slot | {"attribute": "lead"}
        await call(agent, "fact_set", slot | {"value": "dave", "origin": "user"})
        carol = await call(agent, "fact_set", slot | {"value": "carol", "origin": "assistant",
                                                      "replaces": True})
        assert carol["action"] == "park"
        out = await call(reviewer, "contender_decide", {
            "fact_id": carol["fact"]["id"], "decision": "discard", "reasoning": "not true",
            "namespace": ns})
        assert out["fact"]["verdict"] == "withdrawn" and out["superseded"] == []
        assert (await call(reviewer, "review_list", {"kind": "contender",
                                                     "namespace": ns}))["items"] == []
        again = await call(agent, "fact_set", slot | {"value": "carol", "origin": "assistant",
                                                      "replaces": True})
        assert again["action"] == "park" and again.get("reasserts_retired")
    for action in ("contender.accept", "contender.discard"):
        assert "reasoning" in await audit_of(admin_dsn, "cortex", ns, action), action


async def test_forget_by_writer(stack: Stack, admin_dsn: str):
    ns = f"lt-{uuid.uuid4().hex[:6]}"
    who = principals(stack, ns)
    rogue_name = f"rogue-{uuid.uuid4().hex[:6]}"
    rogue = stack.principals.create(rogue_name, "agent", [ns])
    words = [marker() for _ in range(3)]
    async with mcp_client(stack.mcp_url, rogue) as client:
        entries = [await call(client, "memory_store", {"text": f"note {w} about the build",
                                                       "namespace": ns}) for w in words]
        await call(client, "fact_set", {"entity": "build", "attribute": "tool",
                                        "value": words[0], "namespace": ns})
    async with mcp_client(stack.mcp_url, who["agent"]) as client:
        mine = await call(client, "memory_store", {"text": "an honest note", "namespace": ns})
        assert "needs the operator role; you are agent" in await call_error(
            client, "forget_by_writer", {"principal": rogue_name, "reason": "r",
                                         "namespace": ns})
    async with mcp_client(stack.mcp_url, who["reader"]) as client:
        assert "read-only access" in await call_error(client, "forget_by_writer", {
            "principal": rogue_name, "reason": "r", "namespace": ns})
    async with mcp_client(stack.mcp_url, who["operator"]) as op:
        args = {"principal": rogue_name, "reason": "rogue agent", "namespace": ns}
        preview = await call(op, "forget_by_writer", args | {"dry_run": True})
        assert sorted(preview["entries"]["ids"]) == sorted(e["id"] for e in entries)
        assert len(preview["facts"]["ids"]) == 1 and preview["dry_run"] is True
        assert preview["entries"]["more"] is False and preview["limit"]["entries"] > 0
        for e in entries:  # the preview wrote nothing
            await call(op, "memory_get", {"id": e["id"], "namespace": ns})
        assert "since must be before until" in await call_error(op, "forget_by_writer", args | {
            "since": "2026-01-02", "until": "2026-01-01"})
        assert "ISO-8601" in await call_error(op, "forget_by_writer", args | {"since": "soon"})
        window = await call(op, "forget_by_writer", args | {"until": "2000-01-01",
                                                            "dry_run": True})
        assert window["entries"]["ids"] == [] and window["facts"]["ids"] == []
        done = await call(op, "forget_by_writer", args)
        assert sorted(done["entries"]["ids"]) == sorted(e["id"] for e in entries)
        for e in entries:
            assert "was forgotten" in await call_error(op, "memory_get", {"id": e["id"],
                                                                          "namespace": ns})
        await call(op, "memory_get", {"id": mine["id"], "namespace": ns})
        fact = await call(op, "fact_get", {"entity": "build", "attribute": "tool",
                                           "namespace": ns})
        assert fact["current"] == []
        again = await call(op, "forget_by_writer", args)
        assert again["entries"]["ids"] == [] and again["facts"]["ids"] == []
    for schema, action in (("memory", "entry.forget_by_writer"),
                           ("cortex", "fact.forget_by_writer")):
        audit = await audit_of(admin_dsn, schema, ns, action)
        assert rogue_name in audit and "rogue agent" in audit, action
        assert not any(w in audit for w in words), action


async def test_forget_writer_cli_previews(stack: Stack, tmp_path):
    ns, writer = f"lt-{uuid.uuid4().hex[:6]}", f"lt-w-{uuid.uuid4().hex[:6]}"
    operator = stack.principals.create(f"lt-o-{uuid.uuid4().hex[:6]}", "operator", [ns])
    async with mcp_client(stack.mcp_url, stack.principals.create(writer, "agent",
                                                                  [ns])) as client:
        stored = await call(client, "memory_store", {"text": f"cli {marker()}",
                                                     "namespace": ns})
    token = tmp_path / "operator.token"
    token.write_text(operator)
    done = engram(stack, "forget-writer", writer, "--namespace", ns, "--reason", "cli",
                  "--dry-run", "--token-file", str(token))
    assert done.returncode == 0, done.stderr
    assert stored["id"] in done.stdout and '"dry_run": true' in done.stdout
    refused = engram(stack, "forget-writer", writer, "--namespace", ns, "--reason", "cli",
                     "--token-file", str(tmp_path / "missing"))
    assert refused.returncode == 2 and "cannot read the token file" in refused.stderr


async def test_mail_forget(stack: Stack, agent_token: str, admin_dsn: str):
    body = f"the vault opens with {marker()}"
    other = stack.principals.create(f"lt-m-{uuid.uuid4().hex[:6]}", "agent", ["default"])
    reader = stack.principals.create(f"lt-mr-{uuid.uuid4().hex[:6]}", "agent", [],
                                     ["default"])
    async with AsyncExitStack() as es:
        a, _ = await join(es, stack, agent_token)
        b, b_id = await join(es, stack, agent_token)
        c, _ = await join(es, stack, other)
        sent = await call(a, "board_message", {"action": "send", "to": b_id, "text": body})
        mid = sent["receipts"][0]["message_id"]
        assert "neither from nor to you" in await call_error(c, "mail_forget", {
            "mail_id": mid, "reason": "x"})
        assert "no message" in await call_error(b, "mail_forget", {"mail_id": NO_ID,
                                                                   "reason": "x"})
        assert "must be a mail id" in await call_error(b, "mail_forget", {"mail_id": "nope",
                                                                         "reason": "x"})
        assert "reason is 1-500" in await call_error(b, "mail_forget", {"mail_id": mid,
                                                                        "reason": ""})
        ro = await es.enter_async_context(mcp_client(stack.mcp_url, reader))
        assert "read-only access" in await call_error(ro, "mail_forget", {"mail_id": mid,
                                                                          "reason": "x"})
        done = await call(b, "mail_forget", {"mail_id": mid, "reason": "secret"})
        assert done == {"erased": [mid]}
        inbox = await call(b, "board_message", {"action": "receive"})
        [kept] = [m for m in inbox["messages"] if m["id"] == mid]
        assert kept["redacted"] is True and kept["text"] == "[body erased]"
        assert body not in str(inbox)
        assert (await call(a, "mail_forget", {"mail_id": mid, "reason": "again"})) == {
            "erased": [mid]}
    audit = await rows_as_text(admin_dsn, "SELECT * FROM coordination.audit "
                               "WHERE action = 'message.forget' AND subject = $1", mid)
    assert "secret" in audit and body not in audit


async def test_rest_routes_run_the_same_operations(stack: Stack):
    ns = f"lt-{uuid.uuid4().hex[:6]}"
    who = principals(stack, ns)
    slot = {"entity": "billing", "attribute": "owner", "namespace": ns}
    async with mcp_client(stack.mcp_url, who["agent"]) as client:
        doc = await call(client, "document_ingest", {"content": f"notes {marker()}",
                                                     "source": "n.md", "namespace": ns})
        await call(client, "fact_set", slot | {"value": "alice", "origin": "user"})
        bob = await call(client, "fact_set", slot | {"value": "bob", "origin": "assistant",
                                                     "replaces": True})
    base = stack.mcp_url.removesuffix("/mcp")

    def http(role: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=base, timeout=30, headers={
            "Authorization": f"Bearer {who[role]}", "X-Engram-Namespace": ns})

    async with http("agent") as agent, http("reviewer") as reviewer:
        r = await agent.post(f"/v1/documents/{doc['id']}/forget", json={"reason": "secret"})
        assert r.status_code == 403 and "needs the erase grant" in r.json()["detail"]["detail"]
        r = await reviewer.post(f"/v1/documents/{doc['id']}/forget", json={"reason": "secret"})
        assert r.status_code == 200 and r.json()["document_id"] == doc["id"]
        r = await reviewer.post(f"/v1/documents/{doc['id']}/forget", json={"reason": "again"})
        assert r.status_code == 404 and "was forgotten" in r.json()["detail"]
        r = await reviewer.post(f"/v1/documents/{doc['id']}/forget", json={"reason": "x",
                                                                            "extra": 1})
        assert r.status_code == 422
        decide = f"/v1/review/contenders/{bob['fact']['id']}/decide"
        r = await reviewer.post(decide, json={"decision": "discard", "reasoning": "not so"})
        assert r.status_code == 200 and r.json()["fact"]["verdict"] == "withdrawn"
        r = await reviewer.post(decide, json={"decision": "accept", "reasoning": "again"})
        assert r.status_code == 409 and "not a parked contender" in r.json()["detail"]


async def test_forget_by_writer_is_bounded_per_call(stack: Stack, tmp_path):
    """With at most 2 rows a call, 3 entries take two calls: the first says
    `more`, the second finishes; a dry run at the bound changes nothing."""
    ns = f"lt-{uuid.uuid4().hex[:6]}"
    who = principals(stack, ns)
    rogue_name = f"rogue-{uuid.uuid4().hex[:6]}"
    rogue = stack.principals.create(rogue_name, "agent", [ns])
    async with mcp_client(stack.mcp_url, rogue) as client:
        entries = [await call(client, "memory_store", {"text": f"note {marker()} on the build",
                                                       "namespace": ns}) for _ in range(3)]
    bounded = {"ENGRAM_FORGET_WRITER_MAX_ROWS": "2"}
    with service_process(stack, "memory", bounded, tmp_path) as memory, \
            service_process(stack, "gateway",
                            {"ENGRAM_MEMORY_ADDR": f"127.0.0.1:{memory['grpc']}"},
                            tmp_path) as gw:
        async with mcp_client(f"http://127.0.0.1:{gw['http']}/mcp", who["operator"]) as op:
            args = {"principal": rogue_name, "reason": "rogue agent", "namespace": ns}
            preview = await call(op, "forget_by_writer", args | {"dry_run": True})
            assert len(preview["entries"]["ids"]) == 2 and preview["entries"]["more"] is True
            assert preview["limit"]["entries"] == 2
            first = await call(op, "forget_by_writer", args)
            assert first["entries"]["ids"] == preview["entries"]["ids"], "oldest first"
            assert first["entries"]["more"] is True
            second = await call(op, "forget_by_writer", args)
            assert len(second["entries"]["ids"]) == 1 and second["entries"]["more"] is False
            gone = set(first["entries"]["ids"]) | set(second["entries"]["ids"])
            assert gone == {e["id"] for e in entries}
