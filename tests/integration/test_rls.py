"""Row-level security holds for the services' own database roles."""

from __future__ import annotations

import uuid

import asyncpg
import pytest

from engram_kit.db import create_pool, tenant_tx
from engram_memory.repo import VECTOR_SCAN
from engram_runner.stack import Stack

from ..helpers import call, mcp_client


async def _as_service(stack: Stack, name: str) -> asyncpg.Connection:
    return await asyncpg.connect(stack.service_dsn(name))


async def test_service_roles_cannot_bypass_rls(stack: Stack):
    conn = await _as_service(stack, "memory")
    try:
        row = await conn.fetchrow(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert row is not None
        assert row["rolsuper"] is False and row["rolbypassrls"] is False
        forced = await conn.fetchval(
            "SELECT bool_and(relforcerowsecurity AND relrowsecurity) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname IN ('memory', 'dreamer', 'cortex', 'coordination') "
            "AND c.relkind = 'r' AND c.relname <> 'schema_migrations'")
        assert forced is True
    finally:
        await conn.close()


async def test_no_namespace_setting_sees_nothing(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "memory_store", {"text": "RLS probe: the cache TTL is 300 seconds."})
    tables = [("memory", f"memory.{t}") for t in
              ("entries", "outbox", "embedding_queue", "entry_versions")]
    for service, table in [*tables, ("dreamer", "dreamer.processed_events")]:
        conn = await _as_service(stack, service)
        try:
            assert await conn.fetchval(f"SELECT count(*) FROM {table}") == 0
        finally:
            await conn.close()


async def test_namespace_a_never_sees_namespace_b(stack: Stack):
    token_b = stack.principals.create("rls-b", "agent", ["rls-b"])
    async with mcp_client(stack.mcp_url, token_b) as client:
        await call(client, "memory_store", {"text": "Namespace B secret: the vault is blue."})
    conn = await _as_service(stack, "memory")
    try:
        async with conn.transaction():
            await conn.execute("SELECT set_config('engram.namespace', 'default', true)")
            seen = await conn.fetch("SELECT DISTINCT namespace FROM memory.entries")
            assert [r["namespace"] for r in seen] == ["default"]
            assert await conn.fetchval(
                "SELECT count(*) FROM memory.entries WHERE text LIKE 'Namespace B%'") == 0
        async with conn.transaction():
            await conn.execute("SELECT set_config('engram.namespace', 'rls-b', true)")
            assert await conn.fetchval("SELECT count(*) FROM memory.entries") == 1
    finally:
        await conn.close()


async def test_cannot_write_into_another_namespace(stack: Stack):
    conn = await _as_service(stack, "memory")
    try:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            async with conn.transaction():
                await conn.execute("SELECT set_config('engram.namespace', 'default', true)")
                await conn.execute(
                    "INSERT INTO memory.entries (id, namespace, text, text_hash,"
                    " writer_principal, valid_from) VALUES ($1, 'rls-b', 'x', 'h', 't', now())",
                    uuid.uuid4())
    finally:
        await conn.close()


async def test_pooled_connections_carry_no_tenant_state(stack: Stack):
    """The pool skips asyncpg's session reset (kit.db): a namespace set for one
    transaction, or a transaction that failed midway, must not reach the next
    user of the same connection; the pool's session settings do."""
    pool = await create_pool(stack.service_dsn("memory"), schema="memory", min_size=1,
                             max_size=1, session_settings=VECTOR_SCAN)
    try:
        async with tenant_tx(pool, "default") as conn:
            assert await conn.fetchval("SELECT current_setting('engram.namespace')") == "default"
        with pytest.raises(asyncpg.UndefinedTableError):
            async with tenant_tx(pool, "default") as conn:
                await conn.execute("SELECT * FROM no_such_table")
        async with pool.acquire() as conn:  # the same (only) connection
            assert not conn.is_in_transaction()
            assert await conn.fetchval(
                "SELECT coalesce(current_setting('engram.namespace', true), '')") == ""
            assert await conn.fetchval("SELECT count(*) FROM memory.entries") == 0
            assert await conn.fetchval("SHOW hnsw.iterative_scan") == "relaxed_order"
    finally:
        await pool.close()
