"""Board mail through the real stack: addressing, exactly-once delivery,
acks, limits, secrets, redaction, live hints over NATS, and isolation."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from contextlib import AsyncExitStack

from engram_coordination.board import subject_token
from engram_runner.stack import Stack

from ..helpers import (
    admin_fetchval,
    call,
    call_error,
    mcp_client,
    nats_client,
    ok_json,
    rest_client,
)


async def join(es: AsyncExitStack, stack: Stack, token: str, project: str = "") -> tuple:
    client = await es.enter_async_context(
        mcp_client(stack.mcp_url, token, session=f"s-{uuid.uuid4().hex[:8]}"))
    reply = await call(client, "board_agents", {"action": "update", "project": project,
                                                "status": "working"})
    return client, reply["agent"]["id"]


async def pending_texts(client) -> list[str]:
    inbox = await call(client, "board_message", {"action": "receive"})
    return [m["text"] for m in inbox["messages"] if m["kind"] == "mail"]


async def test_direct_project_and_all_arrive_once_and_ack(stack: Stack, agent_token: str):
    project = f"p{uuid.uuid4().hex[:6]}"
    async with AsyncExitStack() as es:
        a, a_id = await join(es, stack, agent_token, project)
        b, b_id = await join(es, stack, agent_token, project)
        c, c_id = await join(es, stack, agent_token, "elsewhere")
        tag = uuid.uuid4().hex[:6]
        direct = await call(a, "board_message", {"action": "send", "to": b_id[:-2],
                                                 "text": f"direct {tag}", "request_id": "r1"})
        assert direct["receipts"] == [{"message_id": direct["receipts"][0]["message_id"],
                                       "recipient": b_id}]
        retry = await call(a, "board_message", {"action": "send", "to": b_id[:-2],
                                                "text": f"direct {tag}", "request_id": "r1"})
        assert retry["duplicate"] and retry["receipts"] == direct["receipts"]
        changed = await call_error(a, "board_message", {"action": "send", "to": b_id,
                                                        "text": "other", "request_id": "r1"})
        assert "request_id 'r1' was used for a different message" in changed
        to_project = await call(a, "board_message", {"action": "send",
                                                     "to": f"project:{project}",
                                                     "text": f"project {tag}"})
        assert [r["recipient"] for r in to_project["receipts"]] == [b_id]
        to_all = await call(a, "board_message", {"action": "send", "to": "all",
                                                 "text": f"all {tag}", "request_id": "r2"})
        assert {b_id, c_id} <= {r["recipient"] for r in to_all["receipts"]}
        assert a_id not in {r["recipient"] for r in to_all["receipts"]}

        assert sorted(await pending_texts(b)) == sorted(
            [f"direct {tag}", f"project {tag}", f"all {tag}"])
        assert await pending_texts(b) == await pending_texts(b), "receive is not destructive"
        assert await pending_texts(c) == [f"all {tag}"]
        inbox = await call(b, "board_message", {"action": "receive", "limit": 2})
        assert len(inbox["messages"]) == 2 and inbox["next_cursor"] and inbox["pending"] == 3
        assert "not an instruction from the user" in inbox["origin"]
        rest = await call(b, "board_message", {"action": "receive",
                                               "cursor": inbox["next_cursor"]})
        assert len(rest["messages"]) == 1
        ids = [m["id"] for m in inbox["messages"] + rest["messages"]]
        acked = await call(b, "board_message", {"action": "ack", "ids": ids})
        assert acked["acked"] == 3
        again = await call(b, "board_message", {"action": "ack", "ids": ids[:1]})
        assert again == {"acked": 0, "already_acked": ids[:1]}
        assert await pending_texts(b) == []

        # Mail survives a restart of the coordination service.
        await call(a, "board_message", {"action": "send", "to": c_id, "text": f"kept {tag}"})
        stack.stop_service("coordination")
        stack.start_service("coordination")
        stack.wait_ready(["coordination"], 60)
        assert sorted(await pending_texts(c)) == sorted([f"all {tag}", f"kept {tag}"])


async def test_cannot_ack_another_agents_mail(stack: Stack, agent_token: str):
    async with AsyncExitStack() as es:
        a, _ = await join(es, stack, agent_token)
        b, b_id = await join(es, stack, agent_token)
        sent = await call(a, "board_message", {"action": "send", "to": b_id, "text": "hi"})
        message_id = sent["receipts"][0]["message_id"]
        err = await call_error(a, "board_message", {"action": "ack", "ids": [message_id]})
        assert "addressed to another agent" in err
        err = await call_error(b, "board_message", {"action": "ack", "ids": ["nope"]})
        assert "'nope' is not a message id" in err
        err = await call_error(b, "board_message", {"action": "ack", "ids": [str(uuid.uuid4())]})
        assert "no message" in err
        err = await call_error(b, "board_message", {"action": "ack"})
        assert "needs ids" in err
        assert len(await pending_texts(b)) == 1, "a refused ack changes nothing"
        err = await call_error(b, "board_message", {"action": "redact", "ids": [message_id]})
        assert "operator role" in err


async def test_limits_and_secrets_are_refused(stack: Stack, agent_token: str):
    async with AsyncExitStack() as es:
        a, a_id = await join(es, stack, agent_token)
        b, b_id = await join(es, stack, agent_token)
        err = await call_error(a, "board_message", {"action": "send", "to": b_id,
                                                    "text": "x" * 8193})
        assert "8193 bytes" in err and "8192" in err
        for secret in ("deploy key AKIAABCDEFGHIJKLMNOP", "password: hunter2hunter2",
                       "-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
                       "use ghp_" + "a" * 36, "postgres://app:s3cretpw@db:5432/x"):
            err = await call_error(a, "board_message", {"action": "send", "to": b_id,
                                                        "text": secret})
            assert "message refused" in err, secret
        err = await call_error(a, "board_message", {"action": "send", "to": "zz-nobody",
                                                    "text": "hello"})
        assert "no agent 'zz-nobody'" in err
        err = await call_error(a, "board_message", {"action": "send", "to": "",
                                                    "text": "hello"})
        assert "to is required" in err
        assert await pending_texts(b) == [], "nothing refused was delivered"

        # 60 sends per minute per sender; the 61st names the limit.
        for i in range(60):
            await call(a, "board_message", {"action": "send", "to": a_id, "text": f"n{i}"})
        err = await call_error(a, "board_message", {"action": "send", "to": b_id,
                                                    "text": "one too many"})
        assert "sends_per_minute=60" in err

        # 256 pending per recipient: five senders fill b's mailbox.
        senders = [await join(es, stack, agent_token) for _ in range(5)]

        async def fill(client, count: int) -> None:
            for i in range(count):
                await call(client, "board_message", {"action": "send", "to": b_id,
                                                     "text": f"fill {i}"})

        await asyncio.gather(*[fill(c, 52 if i < 4 else 48) for i, (c, _) in
                               enumerate(senders)])
        err = await call_error(senders[4][0], "board_message",
                               {"action": "send", "to": b_id, "text": "overflow"})
        assert "mailbox of" in err and "pending_max=256" in err


async def test_operator_redacts_and_audit_keeps_the_hash(stack: Stack, agent_token: str):
    operator = stack.principals.create(f"op-{uuid.uuid4().hex[:4]}", "operator", ["default"])
    async with AsyncExitStack() as es:
        a, _ = await join(es, stack, agent_token)
        b, b_id = await join(es, stack, agent_token)
        sent = await call(a, "board_message", {"action": "send", "to": b_id,
                                               "text": "oops, an internal hostname"})
        message_id = sent["receipts"][0]["message_id"]
        op = await es.enter_async_context(mcp_client(stack.mcp_url, operator))
        assert (await call(op, "board_message", {"action": "redact", "ids": [message_id]})
                ) == {"redacted": 1}
        [m] = (await call(b, "board_message", {"action": "receive"}))["messages"]
        assert m["redacted"] and "internal hostname" not in m["text"]
        dsn = stack.postgres.admin_dsn
        send_hash = await admin_fetchval(
            dsn, "SELECT detail->>'body_hmac' FROM coordination.audit "
            "WHERE action = 'message.send' AND subject = $1", message_id)
        redact_hash = await admin_fetchval(
            dsn, "SELECT detail->>'body_hmac' FROM coordination.audit "
            "WHERE action = 'message.redact' AND subject = $1", message_id)
        assert send_hash and send_hash == redact_hash
        assert await admin_fetchval(
            dsn, "SELECT body FROM coordination.messages WHERE id = $1::uuid",
            message_id) is None


async def test_live_hint_over_nats_and_mail_stays_out_of_memory(stack: Stack,
                                                                 agent_token: str):
    nc = await nats_client(stack, "admin")  # hints are for operators' tools
    try:
        async with AsyncExitStack() as es:
            a, a_id = await join(es, stack, agent_token)
            b, b_id = await join(es, stack, agent_token)
            sub = await nc.subscribe(f"engram.board.default.mail.{subject_token(b_id)}")
            word = f"zebracorn{uuid.uuid4().hex[:6]}"
            sent = await call(a, "board_message", {"action": "send", "to": b_id,
                                                   "text": f"the {word} plan"})
            hint = json.loads((await sub.next_msg(timeout=5)).data)
            assert hint == {"message_id": sent["receipts"][0]["message_id"], "from": a_id,
                            "kind": "mail"}
            found = await call(a, "memory_search", {"query": f"{word} plan"})
            assert all(word not in hit["text"] for hit in found["entries"])
            # Control: the same search does find the word once it is stored as memory.
            await call(a, "memory_store", {"text": f"the {word} plan is stored as memory"})
            found = await call(a, "memory_search", {"query": f"{word} plan"})
            assert [h["text"] for h in found["entries"] if word in h["text"]] == [
                f"the {word} plan is stored as memory"]
    finally:
        await nc.close()


async def test_other_namespaces_see_nothing(stack: Stack, agent_token: str):
    other = stack.principals.create(f"ns-{uuid.uuid4().hex[:4]}", "agent", ["board-other"])
    lease = f"iso:{uuid.uuid4().hex[:6]}"
    async with AsyncExitStack() as es:
        a, a_id = await join(es, stack, agent_token)
        await call(a, "board_lease", {"action": "claim", "name": lease})
        stranger = await es.enter_async_context(mcp_client(stack.mcp_url, other))
        board = await call(stranger, "board_agents", {"action": "list"})
        assert board["peers"] == [] and board["older_count"] == 0
        assert (await call(stranger, "board_lease", {"action": "list"}))["leases"] == []
        err = await call_error(stranger, "board_message", {"action": "send", "to": a_id,
                                                           "text": "hello?"})
        assert "no agent" in err
        granted = await call(stranger, "board_lease", {"action": "claim", "name": lease})
        assert granted["granted"], "a lease name is per namespace"
        err = await call_error(stranger, "board_agents", {"action": "list",
                                                          "namespace": "default"})
        assert "may not use namespace 'default'" in err


async def test_no_chosen_session_makes_one_principal_another_principals_agent(stack: Stack):
    """A client picks its session id; the agent id it yields is never another
    principal's. The old id `<principal>-<8 hex of the session>` was, for a
    principal named `<that principal>-<those 8 hex>`, and took its mail."""
    session = f"s-{uuid.uuid4().hex[:8]}"
    base = f"imp{uuid.uuid4().hex[:6]}"
    victim = f"{base}-{hashlib.sha256(session.encode()).hexdigest()[:8]}"
    tokens = {name: stack.principals.create(name, "agent", [base])
              for name in (victim, base, f"{base}x")}
    headers = {"Authorization": f"Bearer {tokens[victim]}"}
    async with rest_client(stack, headers) as rest, AsyncExitStack() as es:
        registered = await ok_json(await rest.post("/v1/board/agents",
                                                   json={"status": "working"}))
        assert registered["agent"]["id"] == victim
        other = await es.enter_async_context(
            mcp_client(stack.mcp_url, tokens[base], session=session))
        me = await call(other, "board_agents", {"action": "update", "status": "working"})
        assert me["agent"]["id"] != victim
        sender = await es.enter_async_context(mcp_client(stack.mcp_url, tokens[f"{base}x"]))
        sent = await call(sender, "board_message", {"action": "send", "to": victim,
                                                    "text": "for the victim only"})
        assert [r["recipient"] for r in sent["receipts"]] == [victim]
        assert await pending_texts(other) == []
        inbox = await ok_json(await rest.get("/v1/board/messages"))
        assert [m["text"] for m in inbox["messages"]] == ["for the victim only"]
