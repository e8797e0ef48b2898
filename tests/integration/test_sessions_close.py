"""Sessions close: session_close and the idle sweep end a session's episode
with an extractive title and summary of its own memories (episode_summary
returns it), an empty one is removed, and a write within the reopen window
reopens the episode instead of starting a new one."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import asyncpg

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client
from ..procs import service_process

NOTES = ["The billing-api now runs on Postgres 16.",
         "We moved the billing-api backups to the new Postgres 16 cluster.",
         "Lunch was at noon."]


async def episode_of(dsn: str, entry_id: str) -> uuid.UUID:
    return uuid.UUID(await admin_fetchval(
        dsn, "SELECT episode FROM memory.entries WHERE id = $1", uuid.UUID(entry_id)))


async def audit_actions(dsn: str, subject: uuid.UUID) -> list[str]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("SELECT action, principal FROM memory.audit WHERE subject = $1 "
                                "ORDER BY id", str(subject))
    finally:
        await conn.close()
    return [f"{r['action']} {r['principal']}" for r in rows]


async def test_session_close_summarises_and_a_later_write_reopens(stack: Stack, admin_dsn: str):
    ns = f"sc-{uuid.uuid4().hex[:6]}"
    name = f"a-{ns}"
    token = stack.principals.create(name, "agent", [ns])
    async with mcp_client(stack.mcp_url, token, f"s-{ns}") as client:
        ids = [(await call(client, "memory_store", {"text": t}))["id"] for t in NOTES]
        ep = await episode_of(admin_dsn, ids[0])
        live = await call(client, "episode_summary", {"id": str(ep)})
        assert live["ended_at"] is None and "Postgres 16" in live["summary"]
        closed = await call(client, "session_close", {})
        assert closed["id"] == str(ep) and closed["ended_at"] and not closed["pruned"]
        assert "Postgres 16" in closed["title"] and "Lunch" not in closed["title"]
        assert closed["entries"] == 3 and "billing-api" in closed["summary"]
        assert await call(client, "episode_summary", {"id": str(ep)}) == closed
        assert await call(client, "session_close", {}) == closed  # a repeat returns it
        again = await call(client, "memory_store", {"text": "The billing-api deploy is done."})
        assert await episode_of(admin_dsn, again["id"]) == ep, "reopened, not a new one"
        reopened = await call(client, "episode_summary", {"id": str(ep)})
        assert reopened["ended_at"] is None
    assert f"episode.close {name}" in await audit_actions(admin_dsn, ep)


async def test_an_empty_session_is_pruned(stack: Stack):
    ns = f"sp-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token, f"s-{ns}") as client:
        task = await call(client, "episode_start", {"title": "nothing happens"})
        closed = await call(client, "session_close", {})
        assert closed["pruned"] is True and closed["entries"] == 0
        err = await call_error(client, "episode_summary", {"id": task["id"]})
        assert "no episode" in err
        err = await call_error(client, "session_close", {})
        assert "no episode" in err


async def test_session_tools_refuse_bad_input_and_read_grants(stack: Stack, admin_dsn: str):
    ns = f"sr-{uuid.uuid4().hex[:6]}"
    writer = stack.principals.create(f"w-{ns}", "agent", [ns])
    reader = stack.principals.create(f"r-{ns}", "agent", [], [ns])
    async with mcp_client(stack.mcp_url, writer, f"s-{ns}") as client:
        stored = await call(client, "memory_store", {"text": "The cache is Redis 7."})
        assert "id" in await call_error(client, "episode_summary", {"id": "x"})
        unknown = await call_error(client, "episode_summary", {"id": str(uuid.uuid4())})
        assert "no episode" in unknown
        assert "title" in await call_error(client, "session_close", {"title": "x" * 201})
        assert "since" in await call_error(client, "session_changes", {"since": "yesterday"})
    ep = await episode_of(admin_dsn, stored["id"])
    async with mcp_client(stack.mcp_url, reader, f"s-{ns}") as client:
        refused = await call_error(client, "session_close", {"namespace": ns})
        assert "read-only access" in refused
        seen = await call(client, "episode_summary", {"id": str(ep), "namespace": ns})
        assert seen["ended_at"] is None
    still_open = await admin_fetchval(admin_dsn, "SELECT ended_at IS NULL FROM memory.episodes "
                                      "WHERE id = $1", ep)
    assert still_open is True


async def test_an_idle_session_closes_and_reopens_within_the_window(stack: Stack,
                                                                     admin_dsn: str,
                                                                     tmp_path: Path):
    ns = f"si-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token, f"s-{ns}") as client:
        stored = await call(client, "memory_store", {"text": NOTES[0]})
    ep = await episode_of(admin_dsn, stored["id"])
    await admin_fetchval(admin_dsn, "UPDATE memory.episodes SET last_active_at = now() - "
                         "interval '2 hours' WHERE id = $1", ep)
    # A second memory process sweeps every half second (the stack's every minute).
    with service_process(stack, "memory", {"ENGRAM_SESSION_SWEEP_S": "0.5"}, tmp_path):
        for _ in range(60):
            if await admin_fetchval(admin_dsn, "SELECT ended_at IS NOT NULL FROM "
                                    "memory.episodes WHERE id = $1", ep):
                break
            await asyncio.sleep(0.5)
    async with mcp_client(stack.mcp_url, token, f"s-{ns}") as client:
        closed = await call(client, "episode_summary", {"id": str(ep)})
        assert closed["ended_at"] and "Postgres 16" in closed["summary"]
        assert "episode.close system:session-idle" in await audit_actions(admin_dsn, ep)
        # Within the reopen window: the same episode.
        back = await call(client, "memory_store", {"text": "Resumed the billing-api work."})
        assert await episode_of(admin_dsn, back["id"]) == ep
        # Closed longer ago than the window: a new episode.
        await call(client, "session_close", {})
        await admin_fetchval(admin_dsn, "UPDATE memory.episodes SET ended_at = now() - "
                             "interval '3 days' WHERE id = $1", ep)
        later = await call(client, "memory_store", {"text": "A new day on the billing-api."})
        assert await episode_of(admin_dsn, later["id"]) != ep


async def test_forgetting_an_entry_takes_it_out_of_the_stored_summary(stack: Stack,
                                                                      admin_dsn: str):
    ns = f"sf-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    secret = f"zq{uuid.uuid4().hex[:10]}"
    async with mcp_client(stack.mcp_url, token, f"s-{ns}") as client:
        kept = await call(client, "memory_store", {"text": NOTES[0]})
        private = await call(client, "memory_store", {
            "text": f"The billing-api Postgres 16 password is {secret}."})
        closed = await call(client, "session_close", {})
        assert secret in closed["summary"] + closed["title"]
        await call(client, "memory_forget", {"entry_id": private["id"], "reason": "secret"})
        after = await call(client, "episode_summary", {"id": closed["id"]})
    assert secret not in after["summary"] + after["title"] and "Postgres 16" in after["summary"]
    stored = await admin_fetchval(admin_dsn, "SELECT title || summary FROM memory.episodes "
                                  "WHERE id = $1", await episode_of(admin_dsn, kept["id"]))
    assert secret not in stored


async def test_a_task_open_at_close_is_reopened_with_its_session(stack: Stack):
    ns = f"st-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token, f"s-{ns}") as client:
        task = await call(client, "episode_start", {"title": "migrate billing"})
        await call(client, "memory_store", {"text": NOTES[0]})
        await call(client, "session_close", {})  # e.g. the Stop hook after a turn
        ended = await call(client, "episode_end", {})  # the next turn ends the task
        assert ended["id"] == task["id"]
        stored = await call(client, "memory_store", {"text": NOTES[1]})
        assert stored["id"]
