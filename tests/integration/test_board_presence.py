"""Board presence, park records, REST routes, the hand-over window, and the
audit trail, through the real stack."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

import httpx

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client
from ..procs import service_process


async def test_status_children_park_and_listing(stack: Stack, agent_token: str):
    async with AsyncExitStack() as es:
        me = await es.enter_async_context(mcp_client(stack.mcp_url, agent_token, "pres-me"))
        peer = await es.enter_async_context(mcp_client(stack.mcp_url, agent_token, "pres-2"))
        first = await call(me, "board_agents", {
            "action": "update", "project": "engram", "task": "board", "status": "writing tests",
            "expect_seconds": 1, "children": ["reviewer", "runner"]})
        agent = first["agent"]
        assert (agent["project"], agent["task"], agent["status"]) == (
            "engram", "board", "writing tests")
        since = {c["label"]: c["since"] for c in agent["children"]}
        await asyncio.sleep(1.1)
        second = await call(me, "board_agents", {"action": "update",
                                                 "children": ["runner", "fixer"]})
        children = {c["label"]: c["since"] for c in second["agent"]["children"]}
        assert children["runner"] == since["runner"], "a carried-over child keeps its since"
        assert set(children) == {"runner", "fixer"}
        assert second["agent"]["overdue"] and second["agent"]["status"] == "writing tests"

        parked = await call(me, "board_agents", {
            "action": "park", "park_reason": "waiting_peer", "park_needs": "review of #7",
            "park_clear_by": "anyone", "park_resume": "merge"})
        assert parked["agent"]["park"]["reason"] == "waiting_peer"
        board = await call(peer, "board_agents", {"action": "list"})
        [mine] = [p for p in board["peers"] if p["id"] == agent["id"]]
        assert mine["park"]["needs"] == "review of #7" and mine["children"]
        assert board["self"]["id"] != agent["id"]
        # A task-only update keeps the park; a status update clears it.
        kept = await call(me, "board_agents", {"action": "update", "task": "board v2"})
        assert kept["agent"]["park"] is not None
        cleared = await call(me, "board_agents", {"action": "update", "status": "back"})
        assert cleared["agent"]["park"] is None

        # Peers not seen within the window are counted, not listed.
        await admin_fetchval(stack.postgres.admin_dsn,
                             "UPDATE coordination.agents SET last_seen = now() - interval "
                             "'2 hours' WHERE id = $1", agent["id"])
        board = await call(peer, "board_agents", {"action": "list"})
        assert agent["id"] not in [p["id"] for p in board["peers"]]
        assert board["older_count"] >= 1


async def test_presence_bad_input(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token, "pres-bad") as client:
        before = await call(client, "board_agents", {"action": "update", "status": "ok"})
        cases = [
            ({"action": "park", "park_reason": "napping"}, "park reason must be one of"),
            ({"action": "park", "park_reason": "blocked", "park_needs": "n" * 121},
             "the limit is 120"),
            ({"action": "park", "park_reason": "done", "park_expires_seconds": 8 * 86400},
             "expires within"),
            ({"action": "update", "children": [f"c{i}" for i in range(9)]}, "at most 8"),
            ({"action": "update", "children": ["a", "a"]}, "unique"),
            ({"action": "update", "status": "s" * 201}, "the limit is 200"),
            ({"action": "update", "expect_seconds": -1}, "expect_seconds"),
        ]
        for args, expected in cases:
            assert expected in await call_error(client, "board_agents", args), args
        after = await call(client, "board_agents", {"action": "list"})
        assert after["self"]["status"] == before["agent"]["status"] == "ok"
        assert after["self"]["park"] is None and after["self"]["children"] == []


async def test_rest_board_routes(stack: Stack, agent_token: str):
    base = stack.mcp_url.removesuffix("/mcp") + "/v1/board"
    auth = {"Authorization": f"Bearer {agent_token}"}
    async with httpx.AsyncClient(timeout=30) as http:
        assert (await http.get(f"{base}/agents")).status_code == 401
        bad = await http.get(f"{base}/agents", headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401
        a = {**auth, "X-Engram-Session": "rest-a"}
        b = {**auth, "X-Engram-Session": "rest-b"}
        me = (await http.post(f"{base}/agents", json={"status": "via rest"}, headers=a)).json()
        b_id = (await http.post(f"{base}/agents", json={"project": "r"}, headers=b)
                ).json()["agent"]["id"]
        assert me["agent"]["status"] == "via rest"
        lease = f"rest/{uuid.uuid4().hex[:6]}"
        claim = await http.post(f"{base}/leases/{lease}/claim", json={"ttl_seconds": 30},
                                headers=a)
        assert claim.status_code == 200 and claim.json()["granted"]
        steal = await http.post(f"{base}/leases/{lease}/release", headers=b)
        assert steal.status_code == 403 and "only its holder" in steal.json()["detail"]
        sent = await http.post(f"{base}/messages", json={"to": b_id, "text": "hello rest"},
                               headers=a)
        assert sent.status_code == 200
        inbox = (await http.get(f"{base}/messages", headers=b)).json()
        assert [m["text"] for m in inbox["messages"]] == ["hello rest"]
        ack = await http.post(f"{base}/messages/ack",
                              json={"ids": [inbox["messages"][0]["id"]]}, headers=b)
        assert ack.json() == {"acked": 1, "already_acked": []}
        too_big = await http.post(f"{base}/messages", json={"to": b_id, "text": "x" * 9000},
                                  headers=a)
        assert too_big.status_code == 422 and "8192" in too_big.text  # the schema's limit
        wrong_ns = await http.get(f"{base}/agents",
                                  headers={**a, "X-Engram-Namespace": "not-mine"})
        assert wrong_ns.status_code == 403
        bad_cursor = await http.get(f"{base}/messages", params={"cursor": "zzz"}, headers=b)
        assert bad_cursor.status_code == 400


async def test_queue_head_window_lapses_to_the_next(stack: Stack, agent_token: str,
                                                    tmp_path: Path):
    """With a 3 s hand-over window: a head that does not claim in time leaves
    the queue, and the next waiter gets its notice and the lease."""
    with service_process(stack, "coordination", {"ENGRAM_LEASE_HANDOFF_S": "3"},
                         tmp_path) as coord, \
            service_process(stack, "gateway",
                            {"ENGRAM_COORDINATION_ADDR": f"127.0.0.1:{coord['grpc']}"},
                            tmp_path) as gw:
        url = f"http://127.0.0.1:{gw['http']}/mcp"
        lease = f"window:{uuid.uuid4().hex[:6]}"
        async with AsyncExitStack() as es:
            holder, head, second = [await es.enter_async_context(
                mcp_client(url, agent_token, f"w-{i}-{lease}")) for i in range(3)]
            await call(holder, "board_lease", {"action": "claim", "name": lease})
            await call(head, "board_lease", {"action": "claim", "name": lease})
            await call(second, "board_lease", {"action": "claim", "name": lease})
            await call(holder, "board_lease", {"action": "release", "name": lease})
            await asyncio.sleep(4.5)  # the head sleeps through its 3 s window
            inbox = await call(second, "board_message", {"action": "receive"})
            assert any(lease in m["text"] for m in inbox["messages"]), \
                "the sweep tells the next head without anyone touching the lease"
            got = await call(second, "board_lease", {"action": "claim", "name": lease})
            assert got["granted"]
            late = await call(head, "board_lease", {"action": "claim", "name": lease})
            assert not late["granted"] and late["queue_position"] == 1
            lapsed = await admin_fetchval(
                stack.postgres.admin_dsn, "SELECT count(*) FROM coordination.audit "
                "WHERE action = 'lease.handover_lapsed' AND subject = $1", lease)
            assert lapsed == 1


async def test_every_board_mutation_is_audited(stack: Stack, agent_token: str):
    session = f"audit-{uuid.uuid4().hex[:6]}"
    lease = f"audit:{session}"
    async with mcp_client(stack.mcp_url, agent_token, session) as client:
        me = (await call(client, "board_agents", {"action": "update", "status": "x"}))["agent"]
        await call(client, "board_agents", {"action": "park", "park_reason": "done"})
        await call(client, "board_lease", {"action": "claim", "name": lease})
        await call(client, "board_lease", {"action": "release", "name": lease})
        sent = await call(client, "board_message", {"action": "send", "to": me["id"],
                                                    "text": "note to self"})
        await call(client, "board_message", {"action": "ack",
                                             "ids": [sent["receipts"][0]["message_id"]]})
    actions = await admin_fetchval(
        stack.postgres.admin_dsn,
        "SELECT array_agg(action ORDER BY id) FROM coordination.audit WHERE agent_id = $1",
        me["id"])
    assert actions == ["agent.register", "agent.update", "agent.park", "lease.grant",
                       "lease.release", "message.send", "message.ack"]
    err = await admin_fetchval(
        stack.postgres.admin_dsn,
        "SELECT has_table_privilege('engram_coordination', 'coordination.audit', 'UPDATE')")
    assert err is False, "the service role cannot rewrite its audit"
