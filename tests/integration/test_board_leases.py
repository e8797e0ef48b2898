"""Board leases through the real stack: several MCP clients act as
different agents (distinct principals and distinct sessions of one)."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AsyncExitStack

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client


async def agents(stack: Stack, token: str, n: int, stack_ctx: AsyncExitStack) -> list:
    return [await stack_ctx.enter_async_context(
        mcp_client(stack.mcp_url, token, session=f"s-{uuid.uuid4().hex[:8]}"))
        for _ in range(n)]


async def my_id(client) -> str:
    return (await call(client, "board_agents", {"action": "list"}))["self"]["id"]


async def test_lease_race_fencing_expiry_and_queue(stack: Stack, agent_token: str):
    lease = f"deploy:{uuid.uuid4().hex[:6]}"
    async with AsyncExitStack() as es:
        clients = await agents(stack, agent_token, 6, es)
        ids = [await my_id(c) for c in clients]
        assert len(set(ids)) == 6, "each session is its own agent"
        replies = await asyncio.gather(*[
            call(c, "board_lease", {"action": "claim", "name": lease, "ttl_seconds": 60})
            for c in clients])
        granted = [r for r in replies if r["granted"]]
        assert len(granted) == 1, "exactly one agent wins the race"
        assert "advisory" in granted[0]["note"]
        first_token = granted[0]["fencing_token"]
        holder = clients[[r["granted"] for r in replies].index(True)]
        positions = sorted(r["queue_position"] for r in replies if not r["granted"])
        assert positions == [1, 2, 3, 4, 5], positions

        listed = (await call(clients[0], "board_lease", {"action": "list", "name": lease}))
        [row] = listed["leases"]
        assert row["holder"] == await my_id(holder) and len(row["queue"]) == 5
        head_id, second_id = row["queue"][0], row["queue"][1]
        by_id = dict(zip(ids, clients, strict=True))

        # Renewing keeps the token; releasing hands the lease to the queue head.
        renewed = await call(holder, "board_lease", {"action": "renew", "name": lease})
        assert renewed["renewed"] and renewed["fencing_token"] == first_token
        await call(holder, "board_lease", {"action": "release", "name": lease})
        jumper = await call(by_id[second_id], "board_lease", {"action": "claim", "name": lease})
        assert not jumper["granted"] and head_id in jumper["note"], jumper
        inbox = await call(by_id[head_id], "board_message", {"action": "receive"})
        assert any(m["kind"] == "notice" and lease in m["text"] for m in inbox["messages"])
        second = await call(by_id[head_id], "board_lease",
                            {"action": "claim", "name": lease, "ttl_seconds": 1})
        assert second["granted"] and second["fencing_token"] > first_token

        # Expiry frees it; the next head gets it, with a larger token again.
        await asyncio.sleep(1.3)
        third = await call(by_id[second_id], "board_lease", {"action": "claim", "name": lease})
        assert third["granted"] and third["fencing_token"] > second["fencing_token"]
        stale = await call_error(by_id[head_id], "board_lease", {"action": "renew", "name": lease})
        assert "do not hold" in stale and "claim it again" in stale
        expired_audited = await admin_fetchval(
            stack.postgres.admin_dsn,
            "SELECT count(*) FROM coordination.audit WHERE action = 'lease.expire' "
            "AND subject = $1", lease)
        assert expired_audited == 1


async def test_only_the_holder_releases(stack: Stack, agent_token: str):
    lease = f"db:{uuid.uuid4().hex[:6]}"
    async with AsyncExitStack() as es:
        owner, other = await agents(stack, agent_token, 2, es)
        await call(owner, "board_lease", {"action": "claim", "name": lease})
        err = await call_error(other, "board_lease", {"action": "release", "name": lease})
        assert "only its holder can release it" in err
        err = await call_error(other, "board_lease", {"action": "renew", "name": lease})
        assert "do not hold" in err
        held = await call(other, "board_lease", {"action": "claim", "name": lease,
                                                 "queue": False})
        assert not held["granted"] and held["queue_position"] == 0
        listed = await call(other, "board_lease", {"action": "list", "name": lease})
        assert listed["leases"][0]["holder"] == await my_id(owner)
        assert listed["leases"][0]["queue"] == []
        # A waiter may leave the queue with release.
        await call(other, "board_lease", {"action": "claim", "name": lease})
        left = await call(other, "board_lease", {"action": "release", "name": lease})
        assert left["note"] == "left the queue"


async def test_lease_bad_input(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        err = await call_error(client, "board_lease", {"action": "claim", "name": ""})
        assert "lease name is 1-200 chars" in err
        err = await call_error(client, "board_lease", {"action": "claim", "name": "x" * 201})
        assert "1-200" in err
        err = await call_error(client, "board_lease", {"action": "release",
                                                       "name": f"free-{uuid.uuid4().hex}"})
        assert "not held" in err
        err = await call_error(client, "board_lease", {"action": "steal", "name": "x"})
        assert "action" in err


async def test_a_write_right_after_a_restart_is_not_lost(stack: Stack, agent_token: str):
    """A failed call while the board is down leaves the gateway's channel in
    its reconnect backoff, where gRPC fails calls before sending them. A
    write made the moment the board is back must wait that out, not fail
    (it did, now and then: writes were never retried)."""
    async with AsyncExitStack() as es:
        [agent] = await agents(stack, agent_token, 1, es)
        for round_ in range(3):
            stack.stop_service("coordination")
            try:
                err = await call_error(agent, "board_agents", {"action": "update",
                                                               "status": "down"})
                assert "retry" in err.lower() or "unavailable" in err.lower()
            finally:
                stack.start_service("coordination")
                stack.wait_ready(["coordination"], 60)
            done = await call(agent, "board_agents", {"action": "update",
                                                      "status": f"back {round_}"})
            assert done["agent"]["status"] == f"back {round_}"


async def test_leases_survive_a_coordination_restart(stack: Stack, agent_token: str):
    lease = f"restart:{uuid.uuid4().hex[:6]}"
    async with AsyncExitStack() as es:
        owner, waiter = await agents(stack, agent_token, 2, es)
        grant = await call(owner, "board_lease", {"action": "claim", "name": lease,
                                                  "ttl_seconds": 600})
        await call(waiter, "board_lease", {"action": "claim", "name": lease})
        stack.stop_service("coordination")
        try:
            err = await call_error(owner, "board_lease", {"action": "list"})
            assert "retry" in err.lower() or "unavailable" in err.lower()
        finally:
            stack.start_service("coordination")
            stack.wait_ready(["coordination"], 60)
        [row] = (await call(owner, "board_lease", {"action": "list", "name": lease}))["leases"]
        assert row["holder"] == await my_id(owner)
        assert row["queue"] == [await my_id(waiter)]
        assert row["fencing_token"] == grant["fencing_token"]
