"""A dream rollback restores row images from the journal; the images are
data, so their keys must never become SQL. The journal here is crafted as
an import made before imports were checked could leave it: a committed run
whose batch "restores" a fact from an image with a key that is SQL."""

from __future__ import annotations

import json
import uuid

import asyncpg

from engram_runner.stack import Stack

from ..helpers import call, call_error, mcp_client

# Inside the quotes this is text; after them, an expression Postgres runs.
INJECTED = "value = ' || repeat(chr(88), 3)"


async def craft_rollback(admin_dsn: str, ns: str, fact_id: str) -> str:
    run = str(uuid.uuid4())
    conn = await asyncpg.connect(admin_dsn)
    try:
        post = json.loads(await conn.fetchval(
            "SELECT to_jsonb(f) FROM cortex.facts f WHERE id = $1", uuid.UUID(fact_id)))
        pre = {k: v for k, v in post.items() if k != "value"} | {INJECTED: "x"}
        await conn.execute(
            "INSERT INTO dreamer.runs (namespace, id, trigger, extractor, status)"
            " VALUES ($1, $2, 'manual', 'rules', 'committed')", ns, uuid.UUID(run))
        await conn.execute("INSERT INTO cortex.batches (namespace, batch) VALUES ($1, $2)",
                           ns, run)
        await conn.execute(
            "INSERT INTO cortex.journal (namespace, batch, tbl, op, row_key, pre_image,"
            " post_image) VALUES ($1, $2, 'facts', 'update', $3::jsonb, $4::jsonb, $5::jsonb)",
            ns, run, json.dumps([fact_id]), json.dumps(pre), json.dumps(post))
    finally:
        await conn.close()
    return run


async def test_rollback_never_runs_sql_from_a_journal_image(stack: Stack, admin_dsn: str):
    ns = f"jr-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "reviewer", [ns])  # rollback: erase grant
    async with mcp_client(stack.mcp_url, token) as client:
        fact = await call(client, "fact_set", {"entity": "billing", "attribute": "owner",
                                               "value": "ana", "namespace": ns})
        run = await craft_rollback(admin_dsn, ns, fact["fact"]["id"])
        error = await call_error(client, "dream", {"action": "rollback", "run_id": run,
                                                   "namespace": ns})
        after = await call(client, "fact_get", {"entity": "billing", "attribute": "owner",
                                                "namespace": ns})
    assert "journal" in error and "column" in error, error
    assert [f["value"] for f in after["current"]] == ["ana"], after
    status = await asyncpg.connect(admin_dsn)
    try:
        assert await status.fetchval("SELECT status FROM cortex.batches WHERE batch = $1",
                                     run) == "applied"
    finally:
        await status.close()
