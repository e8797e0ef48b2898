"""Decay through the real stack: a pass archives what nobody used, never a
rescued, reinforced, read or recently served entry; archived entries leave
the default search pool but are kept; a rescue holds against later passes;
rollback restores exactly what the pass archived."""

from __future__ import annotations

import uuid

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client

AGE = """UPDATE memory.entries SET created_at = now() - interval '200 days',
             valid_from = now() - interval '200 days' WHERE id = ANY($1::uuid[])"""
STATUS = "SELECT status FROM memory.entries WHERE id = $1::uuid"


async def test_decay_archives_unused_entries_and_a_rescue_holds(stack: Stack, admin_dsn: str):
    ns = f"decay-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    texts = {"stale": "The quartz deploy key rotates every March.",
             "read": "The quartz staging bucket is named qz-stage.",
             "kept": "The quartz canary runs in zone b.",
             "confirmed": "The quartz pager rotation is weekly.",
             "fresh": "The quartz release train leaves on Thursdays."}
    async with mcp_client(stack.mcp_url, token) as client:
        ids = {k: (await call(client, "memory_store", {"text": t}))["id"]
               for k, t in texts.items()}
        await call(client, "memory_rescue", {"entry_id": ids["kept"], "reason": "on-call"})
        await call(client, "memory_reinforce", {"entry_id": ids["confirmed"]})
        old = [ids[k] for k in ("stale", "read", "kept", "confirmed")]
        await admin_fetchval(admin_dsn, AGE, old)
        await call(client, "memory_get", {"id": ids["read"]})  # a use
        await stack_flush_uses(admin_dsn, ids["read"])

        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["archived"] == 1, run
        assert await admin_fetchval(admin_dsn, STATUS, ids["stale"]) == "archived"
        for k in ("read", "kept", "confirmed", "fresh"):
            assert await admin_fetchval(admin_dsn, STATUS, ids[k]) == "live", k

        found = await call(client, "memory_search", {"query": "quartz deploy key rotates",
                                                     "explain": True})
        assert ids["stale"] not in [h["id"] for h in found["entries"]]
        why = {d["id"]: d["reason"] for d in found["trace"]["not_served"]}
        assert why[ids["stale"]].startswith("archived") and "memory_rescue" in why[ids["stale"]]
        history = await call(client, "memory_search", {"query": "quartz deploy key rotates",
                                                       "include_history": True})
        [hit] = [h for h in history["entries"] if h["id"] == ids["stale"]]
        assert hit["label"].startswith("archived")

        rescued = await call(client, "memory_rescue", {"entry_id": ids["stale"],
                                                       "reason": "still true"})
        assert rescued["was_archived"] is True
        found = await call(client, "memory_search", {"query": "quartz deploy key rotates"})
        served = {h["id"]: h["label"] for h in found["entries"]}
        assert served.get(ids["stale"]) == "current", "back in the default pool"
        await admin_fetchval(admin_dsn, AGE, [ids["stale"]])
        again = (await call(client, "dream", {"action": "run"}))["run"]
        assert again["archived"] == 0, "a rescue holds against every later pass"
        assert await admin_fetchval(admin_dsn, STATUS, ids["stale"]) == "live"

        err = await call_error(client, "memory_rescue", {"entry_id": str(uuid.uuid4())})
        assert "no entry" in err
        err = await call_error(client, "memory_rescue", {"entry_id": "nope"})
        assert "entry_id must be an entry id" in err


async def stack_flush_uses(admin_dsn: str, entry_id: str) -> None:
    """Uses are flushed by memory every few seconds; wait for this one."""
    from ..helpers import eventually

    async def flushed() -> bool:
        return bool(await admin_fetchval(
            admin_dsn, "SELECT last_used_at > now() - interval '1 hour' FROM memory.entries "
            "WHERE id = $1::uuid", entry_id))
    await eventually(flushed, 30, "the use mark")


async def test_rollback_restores_what_a_pass_archived(stack: Stack, admin_dsn: str):
    ns = f"decay-{uuid.uuid4().hex[:6]}"
    # A reviewer: the rollback needs the erase grant.
    token = stack.principals.create(f"p-{ns}", "reviewer", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        a = (await call(client, "memory_store", {"text": "The basalt cron runs at 02:00."}))["id"]
        b = (await call(client, "memory_store", {"text": "The basalt mirror is read-only."}))["id"]
        await admin_fetchval(admin_dsn, AGE, [a, b])
        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["archived"] == 2
        await call(client, "memory_rescue", {"entry_id": b})  # a later decision stands
        rolled = await call(client, "dream", {"action": "rollback", "run_id": run["id"]})
        assert rolled["run"]["status"] == "rolled_back"
        assert await admin_fetchval(admin_dsn, STATUS, a) == "live"
        assert await admin_fetchval(admin_dsn, STATUS, b) == "live"
        assert await admin_fetchval(
            admin_dsn, "SELECT rescued_at IS NULL FROM memory.entries WHERE id = $1::uuid", a)
