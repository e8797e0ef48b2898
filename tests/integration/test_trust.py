"""Principals and tokens (CLI), read-only grants, request rates, and the
hash-chained audit with its verify command, through the real stack."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from mcp import MCPError

from engram_runner.stack import Stack

from ..conftest import TEST_PORT_OFFSET
from ..helpers import admin_fetchval, call, call_error, mcp_client
from ..procs import service_process


def engram(stack: Stack, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ENGRAM_PORT_OFFSET": str(TEST_PORT_OFFSET)}
    return subprocess.run([sys.executable, "-m", "engram_cli", *args, "--data-dir",
                           str(stack.data_dir)], capture_output=True, text=True, env=env,
                          timeout=60)


def status_of(stack: Stack, token: str) -> int:
    return httpx.get(stack.mcp_url.removesuffix("/mcp") + "/v1/board/agents",
                     headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code


def test_tokens_are_created_listed_rotated_and_revoked(stack: Stack):
    name = f"ci-{uuid.uuid4().hex[:6]}"
    created = engram(stack, "token", "create", "--principal", name, "--role", "agent",
                     "--namespace", "default")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    assert status_of(stack, token) == 200
    again = engram(stack, "token", "create", "--principal", name, "--role", "agent",
                   "--namespace", "default")
    assert again.returncode == 2 and "exists" in again.stderr
    listed = engram(stack, "token", "list")
    assert name in listed.stdout and token not in listed.stdout
    rotated = engram(stack, "token", "rotate", "--principal", name)
    new = rotated.stdout.strip().splitlines()[-1]
    assert status_of(stack, token) == 401, "the old token stops working at once"
    assert status_of(stack, new) == 200
    assert engram(stack, "token", "revoke", "--principal", name).returncode == 0
    assert status_of(stack, new) == 401
    missing = engram(stack, "token", "revoke", "--principal", name)
    assert missing.returncode == 2 and "no principal" in missing.stderr


async def test_read_only_grants_refuse_writes(stack: Stack, agent_token: str):
    ns = f"ro-{uuid.uuid4().hex[:6]}"
    writer = stack.principals.create(f"w-{ns}", "agent", [ns])
    reader = stack.principals.create(f"r-{ns}", "agent", [], [ns])
    async with mcp_client(stack.mcp_url, writer) as client:
        await call(client, "memory_store", {"text": f"The {ns} service uses Postgres."})
    async with mcp_client(stack.mcp_url, reader) as client:
        found = await call(client, "memory_search", {"query": f"{ns} service"})
        assert any(ns in e["text"] for e in found["entries"])
        err = await call_error(client, "memory_store", {"text": "I may not write here."})
        assert f"read-only access to namespace {ns!r}" in err
        err = await call_error(client, "fact_set", {"entity": "x", "attribute": "y",
                                                    "value": "z"})
        assert "read-only" in err
        assert (await call(client, "board_agents", {"action": "list"}))["peers"] == []


async def test_request_rate_is_limited_per_principal(stack: Stack, agent_token: str,
                                                     tmp_path: Path):
    with service_process(stack, "gateway", {"ENGRAM_RATE_PER_S": "1",
                                            "ENGRAM_RATE_BURST": "3"}, tmp_path) as gw:
        url = f"http://127.0.0.1:{gw['http']}/mcp"
        async with mcp_client(url, agent_token) as client:
            # initialize and its notification took two of the three
            await call(client, "memory_recent", {})
            with pytest.raises(MCPError) as refused:
                await client.call_tool("memory_recent", {})
        err = str(refused.value)
        assert "rate limit" in err and "1 requests per second (burst 3)" in err


async def test_audit_chain_verifies_and_detects_tampering(stack: Stack, admin_dsn: str):
    ns = f"audit-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        for value in ("a", "b", "c"):
            await call(client, "fact_set", {"entity": "svc", "attribute": f"k{value}",
                                            "value": value, "namespace": ns})
        secret = f"zebra{uuid.uuid4().hex[:6]}"
        stored = await call(client, "memory_store", {"text": f"The {secret} plan is on.",
                                                     "namespace": ns})
        await call(client, "memory_forget", {"entry_id": stored["id"], "reason": "drop it",
                                             "namespace": ns})
    memory_rows = await admin_fetchval(
        admin_dsn, "SELECT array_agg(action || ' ' || detail::text ORDER BY id) "
        "FROM memory.audit WHERE namespace = $1", ns)
    assert [r.split()[0] for r in memory_rows] == ["entry.store", "entry.forget"]
    assert all(secret not in r for r in memory_rows), "the audit keeps hashes, not text"
    clean = engram(stack, "audit", "verify")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    for schema in ("memory", "cortex", "coordination"):
        assert f"{schema}.audit" in clean.stdout
    assert "0 problem(s)" in clean.stdout
    shown = engram(stack, "audit", "show", "--schema", "cortex", "--namespace", ns,
                   "--action", "fact.")
    assert shown.stdout.count("fact.insert") == 3
    middle = await admin_fetchval(admin_dsn, "SELECT id FROM cortex.audit WHERE namespace = $1 "
                                  "ORDER BY id OFFSET 1 LIMIT 1", ns)
    await admin_fetchval(admin_dsn, "UPDATE cortex.audit SET principal = 'someone-else' "
                         "WHERE id = $1", middle)
    altered = engram(stack, "audit", "verify")
    assert altered.returncode == 1
    assert f"namespace {ns} row {middle}: content altered" in altered.stdout
    await admin_fetchval(admin_dsn, "DELETE FROM cortex.audit WHERE id = $1", middle)
    deleted = engram(stack, "audit", "verify")
    assert "link broken" in deleted.stdout and deleted.returncode == 1
    # The newest memory row, blanked: no next row's link would notice, so a
    # blank hash after the chain began must be a problem of its own.
    newest = await admin_fetchval(admin_dsn, "SELECT max(id) FROM memory.audit "
                                  "WHERE namespace = $1", ns)
    await admin_fetchval(admin_dsn, "UPDATE memory.audit SET hash = '', principal = 'forger' "
                         "WHERE id = $1", newest)
    blanked = engram(stack, "audit", "verify")
    assert blanked.returncode == 1
    assert (f"memory.audit namespace {ns} row {newest}: a row without a hash after the chain "
            "began") in blanked.stdout
    role_can_delete = await admin_fetchval(
        admin_dsn, "SELECT has_table_privilege('engram_cortex', 'cortex.audit', 'DELETE')")
    assert role_can_delete is False


def test_doctor_checks_the_running_stack(stack: Stack):
    result = engram(stack, "doctor")
    assert result.returncode == 0, result.stdout
    for line in ("gateway binds 127.0.0.1 (loopback)", "memory: embedding space verified",
                 "dreamer: extractor rules", "memory outbox lag", "cortex outbox lag",
                 "service versions 0.1.0", "stream ENGRAM_EVENTS", "all good"):
        assert line in result.stdout, line


async def test_toolset_tiers_filter_the_tool_list(stack: Stack):
    token = stack.principals.create(f"ts-{uuid.uuid4().hex[:6]}", "agent", ["default"])
    async with mcp_client(stack.mcp_url, token) as client:
        full = {t.name for t in (await client.list_tools()).tools}
        assert (await call(client, "toolset", {}))["tier"] == "full"
        small = await call(client, "toolset", {"tier": "minimal"})
        assert small["changed"] and small["tier"] == "minimal"
        listed = {t.name for t in (await client.list_tools()).tools}
        assert listed == {"memory_store", "memory_search", "briefing", "toolset"}
        err = await call_error(client, "fact_set", {"entity": "a", "attribute": "b",
                                                    "value": "c"})
        assert "not in your toolset 'minimal'" in err and "expand" in err
        assert (await call(client, "toolset", {"action": "expand"}))["tier"] == "core"
        core = {t.name for t in (await client.list_tools()).tools}
        assert listed < core < full and "fact_set" in core and "dream" not in core
        await call(client, "toolset", {"tier": "full"})
        assert {t.name for t in (await client.list_tools()).tools} == full


async def test_audit_show_prints_escape_sequences_inert(stack: Stack):
    """A lease name is the agent's own text and lands in the audit row's
    subject: shown, its escape sequences must not reach the terminal."""
    ns = f"esc-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"a-{ns}", "agent", [ns])
    name = "deploy\x1b]0;owned\x07\x1b[2J\x1b[31m\u202e\u009b1m\nforged row"
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "board_lease", {"action": "claim", "name": name,
                                           "ttl_seconds": 60, "namespace": ns})
    shown = engram(stack, "audit", "show", "--schema", "coordination", "--namespace", ns)
    assert shown.returncode == 0, shown.stderr
    rows = shown.stdout.splitlines()
    [claim] = [r for r in rows if " lease." in r]
    assert len(rows) == 2, rows  # the agent's registration and the claim; no forged row
    assert all(c.isprintable() for c in shown.stdout.replace("\n", ""))
    assert "deploy\\x1b]0;owned\\x07\\x1b[2J\\x1b[31m\\u202e\\x9b1m\\nforged row" in claim
