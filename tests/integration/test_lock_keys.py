"""Advisory lock keys: a lock on one tenant's name never stalls another's.

Two slot names whose 32-bit `hashtext` values collide are found by a
birthday search in Postgres itself (what a tenant choosing entity names could
do); a transaction holding the first name's lock, under the old key and the
current one, must not hold up a write to the second name in another
namespace."""

from __future__ import annotations

import asyncio

import asyncpg

from engram_kit.locks import key_sql, lock_key
from engram_runner.stack import Stack

from ..helpers import call, mcp_client

COLLISION = """
    SELECT (array_agg(n) FILTER (WHERE side = 'a'))[1] AS i,
           (array_agg(n) FILTER (WHERE side = 'b'))[1] AS j
    FROM (SELECT 'a' AS side, n, hashtext('cortex/default/e' || n || '/owner') AS h
          FROM generate_series(1, 250000) AS n
          UNION ALL
          SELECT 'b', n, hashtext('cortex/lock-b/e' || n || '/owner')
          FROM generate_series(1, 250000) AS n) AS names
    GROUP BY h HAVING count(DISTINCT side) = 2 LIMIT 1"""


async def test_a_slot_lock_never_stalls_a_colliding_slot_of_another_tenant(
        stack: Stack, agent_token: str, admin_dsn: str):
    token_b = stack.principals.create("lock-b", "agent", ["lock-b"])
    admin = await asyncpg.connect(admin_dsn)
    try:
        pair = await admin.fetchrow(COLLISION)
        assert pair is not None, "250,000 names a side always hold a 32-bit collision"
        held = f"cortex/default/e{pair['i']}/owner"
        tx = admin.transaction()
        await tx.start()
        await admin.execute("SELECT pg_advisory_xact_lock(hashtext($1)), "
                            "pg_advisory_xact_lock($2::bigint)", held, lock_key(held))
        async with mcp_client(stack.mcp_url, token_b) as client_b:
            reply = await asyncio.wait_for(call(client_b, "fact_set", {
                "entity": f"e{pair['j']}", "attribute": "owner", "value": "team b"}), 20)
        assert reply["action"] == "insert"
        # The held lock is the one the cortex takes: the same slot waits.
        async with mcp_client(stack.mcp_url, agent_token) as client_a:
            same = asyncio.ensure_future(call(client_a, "fact_set", {
                "entity": f"e{pair['i']}", "attribute": "owner", "value": "team a"}))
            done, _ = await asyncio.wait({same}, timeout=3)
            assert not done, "a write to the held slot went ahead"
            await tx.rollback()
            assert (await asyncio.wait_for(same, 20))["action"] == "insert"
    finally:
        await admin.close()


async def test_the_key_computed_in_sql_is_the_one_computed_in_python(admin_dsn: str):
    conn = await asyncpg.connect(admin_dsn)
    try:
        for name in ("dream/default", "cortex/ns/größe/owner", "", "idem/" + "k" * 300):
            in_sql = await conn.fetchval(f"SELECT {key_sql('$1::text')}", name)
            assert in_sql == lock_key(name), name
    finally:
        await conn.close()
