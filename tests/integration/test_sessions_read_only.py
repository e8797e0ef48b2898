"""Per-principal MCP sessions and request rates (initialize included), and a
read-only grant that writes nothing: a test generated from the tool list
calls every tool (every action) under a read grant and compares the
namespace's rows in every service schema before and after each call."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from mcp import Client

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, mcp_client, result_text
from ..procs import service_process

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}


async def initialize(http: httpx.AsyncClient, url: str, token: str) -> httpx.Response:
    return await http.post(url, json=INITIALIZE,
                           headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})


async def test_sessions_are_capped_per_principal(stack: Stack, tmp_path: Path):
    name = f"cap-{uuid.uuid4().hex[:6]}"
    greedy = stack.principals.create(name, "agent", [], ["default"])
    other = stack.principals.create(f"other-{name}", "agent", ["default"])
    with service_process(stack, "gateway", {"ENGRAM_MAX_SESSIONS_PER_PRINCIPAL": "3"},
                         tmp_path) as gw:
        url = f"http://127.0.0.1:{gw['http']}/mcp"
        async with httpx.AsyncClient(timeout=30) as http:
            opened = [await initialize(http, url, greedy) for _ in range(3)]
            assert [r.status_code for r in opened] == [200, 200, 200]
            refused = await initialize(http, url, greedy)
            assert refused.status_code == 429, refused.text
            message = refused.json()["error"]["message"]
            assert f"principal {name!r} has 3 open MCP sessions" in message
            assert "ENGRAM_MAX_SESSIONS_PER_PRINCIPAL" in message and "DELETE" in message
            # Another principal still gets in, through the MCP SDK client too.
            assert (await initialize(http, url, other)).status_code == 200
            async with mcp_client(url, other) as client:
                assert (await call(client, "memory_recent", {}))["entries"] is not None
            # Ending a session makes room for one more.
            sid = opened[0].headers["mcp-session-id"]
            ended = await http.delete(url, headers={
                **MCP_HEADERS, "Authorization": f"Bearer {greedy}", "Mcp-Session-Id": sid,
                "Mcp-Protocol-Version": "2025-06-18"})
            assert ended.status_code in (200, 204), ended.text
            assert (await initialize(http, url, greedy)).status_code == 200
            assert (await initialize(http, url, greedy)).status_code == 429


async def test_initialize_counts_against_the_request_rate(stack: Stack, tmp_path: Path):
    token = stack.principals.create(f"burst-{uuid.uuid4().hex[:6]}", "agent", ["default"])
    with service_process(stack, "gateway", {"ENGRAM_RATE_PER_S": "0.2",
                                            "ENGRAM_RATE_BURST": "4"}, tmp_path) as gw:
        url = f"http://127.0.0.1:{gw['http']}/mcp"
        async with httpx.AsyncClient(timeout=30) as http:
            statuses = [(await initialize(http, url, token)).status_code for _ in range(4)]
            assert statuses == [200, 200, 200, 200]
            refused = await initialize(http, url, token)
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        error = refused.json()["error"]
        assert "rate limit" in error["message"] and "(burst 4)" in error["message"]


# Actions of the multi-action tools that change state. A new action (or a
# new tool without readOnlyHint) fails the test until it is classified here.
WRITE_ACTIONS = {"board_agents": {"update", "park"},
                 "board_lease": {"claim", "renew", "release"},
                 "board_message": {"send", "ack", "redact"},
                 "dream": {"run", "rollback"},
                 # operator-only: they need a read-write grant, even the reads
                 "audit": {"show", "verify"},
                 "tokens": {"list", "create", "rotate", "revoke"},
                 "toolset": set()}
READ_ACTIONS = {"board_agents": {"list"}, "board_lease": {"list"},
                "board_message": {"receive"}, "dream": {"status", "runs", "detail"},
                "audit": set(), "tokens": set(),
                "toolset": {"status", "expand", "collapse"}}


def _value(name: str, schema: dict[str, Any], known: dict[str, Any]) -> Any:
    if name in known:
        return known[name]
    if "enum" in schema:
        return schema["enum"][0]
    if "{8}-" in schema.get("pattern", ""):  # an id argument: a well-formed UUID
        return "00000000-0000-0000-0000-000000000000"
    for option in schema.get("anyOf", []):
        if option.get("type") != "null":
            return _value(name, option, known)
    kind = schema.get("type")
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return False
    if kind == "array":
        return [_value(name, schema.get("items", {}), known)] * max(1, schema.get("minItems", 1))
    return "x"


def _enum(schema: dict[str, Any]) -> list[str]:
    return next((o["enum"] for o in [schema, *schema.get("anyOf", [])] if "enum" in o), [])


def operations(tools: list[Any], known: dict[str, Any]) -> list[tuple[str, dict, bool]]:
    """(tool, arguments, writes) for every tool and action in the tool list:
    required arguments filled from the schema, known ones with seeded values."""
    ops = []
    for tool in tools:
        props = tool.input_schema.get("properties", {})
        required = tool.input_schema.get("required", [])
        mine = {**known, **known.get(f"{tool.name}()", {})}  # per-tool values win
        args = {p: _value(p, props[p], mine) for p in props if p in required or p in mine}
        if "action" in props:
            actions = set(_enum(props["action"]))
            assert actions == WRITE_ACTIONS[tool.name] | READ_ACTIONS[tool.name], tool.name
            ops += [(tool.name, {**args, "action": a}, a in WRITE_ACTIONS[tool.name])
                    for a in sorted(actions)]
        else:
            writes = not (tool.annotations and tool.annotations.read_only_hint)
            ops.append((tool.name, args, writes))
    # toolset last: it changes which tools the principal may call.
    return sorted(ops, key=lambda op: op[0] == "toolset")


async def namespace_rows(dsn: str, ns: str) -> dict[str, str]:
    """Every row of the namespace in every service table, as one digest per table."""
    conn = await asyncpg.connect(dsn)
    try:
        tables = await conn.fetch(
            "SELECT table_schema, table_name FROM information_schema.columns "
            "WHERE column_name = 'namespace' AND table_schema IN "
            "('memory', 'cortex', 'coordination', 'dreamer') ORDER BY 1, 2")
        parts = [f"SELECT '{t['table_schema']}.{t['table_name']}' AS t, count(*)::text || ':' "
                 f"|| coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '') AS d "
                 f"FROM \"{t['table_schema']}\".\"{t['table_name']}\" r WHERE namespace = $1"
                 for t in tables]
        rows = await conn.fetch(" UNION ALL ".join(parts), ns)
        return {r["t"]: r["d"] for r in rows}
    finally:
        await conn.close()


async def settled_rows(dsn: str, ns: str) -> dict[str, str]:
    """The rows once background work on the writer's calls (outbox relay,
    embedding, the dreamer's intake) has gone quiet."""
    last = await namespace_rows(dsn, ns)
    for _ in range(60):
        await asyncio.sleep(2)
        now = await namespace_rows(dsn, ns)
        if now == last:
            return now
        last = now
    raise AssertionError("the namespace did not settle")


async def seed(client: Client, ns: str) -> dict[str, Any]:
    stored = await call(client, "memory_store", {"text": f"The {ns} billing-api uses Postgres.",
                                                 "namespace": ns})
    await call(client, "fact_set", {"entity": "billing-api", "attribute": "database",
                                    "value": "postgres", "namespace": ns})
    await call(client, "board_agents", {"action": "update", "status": "seeding",
                                        "namespace": ns})
    await call(client, "board_lease", {"action": "claim", "name": "deploy", "namespace": ns})
    episode = await call(client, "episode_start", {"title": "seeded", "namespace": ns})
    me = (await call(client, "board_agents", {"action": "list", "namespace": ns}))["self"]
    await call(client, "board_message", {"action": "send", "to": me["id"], "text": "hello",
                                         "namespace": ns})
    document = await call(client, "document_ingest", {"content": "seeded runbook",
                                                      "source": "seed", "namespace": ns})
    run = await call(client, "dream", {"action": "run", "namespace": ns})
    return {"id": stored["id"], "entry_id": stored["id"], "entity": "billing-api",
            "attribute": "database", "query": "billing-api database", "namespace": ns,
            "ids": [str(uuid.uuid4())], "run_id": run["run_id"], "to": me["id"],
            "document_id": document["id"],
            "text": "hello", "name": "deploy",
            "episode_summary()": {"id": episode["id"]}}


async def overdue_proposal(dsn: str, ns: str) -> str:
    pid = str(uuid.uuid4())
    await admin_fetchval(
        dsn, "INSERT INTO dreamer.proposals (namespace, id, signature, kind, src, relation, "
        "dst, run_id, expires_at) VALUES ($1, $2, 'graph_link|a|uses|b', 'graph_link', 'a', "
        "'uses', 'b', $2, now() - interval '1 day')", ns, uuid.UUID(pid))
    return pid


async def test_a_read_only_grant_writes_nothing(stack: Stack):
    ns = f"rw0-{uuid.uuid4().hex[:6]}"
    dsn = stack.postgres.admin_dsn
    writer = stack.principals.create(f"w-{ns}", "agent", [ns])
    reader = stack.principals.create(f"r-{ns}", "agent", [], [ns])
    async with mcp_client(stack.mcp_url, writer) as client:
        known = await seed(client, ns)
    pid = await overdue_proposal(dsn, ns)
    before = await settled_rows(dsn, ns)
    refused, failed = [], []
    async with mcp_client(stack.mcp_url, reader, "ro-reader") as client:
        ops = operations((await client.list_tools()).tools, known)
        assert len(ops) >= 40, "the tool list drives this test"
        for tool, args, writes in ops:
            result = await client.call_tool(tool, args)
            text = result_text(result)
            if writes:
                if not (result.is_error and "read-only access" in text):
                    refused.append(f"{tool} {args.get('action', '')}: {text[:200]}")
            elif result.is_error:
                failed.append(f"{tool} {args.get('action', '')}: {text[:200]}")
            after = await namespace_rows(dsn, ns)
            changed = [t for t in before if before[t] != after[t]]
            assert not changed, f"{tool} {args} under a read grant changed {changed}"
            if tool == "review_list":
                listed = json.dumps(result.structured_content or {})
                assert pid not in listed, "an expired proposal is not listed as open"
    assert not refused, f"writes not refused under a read grant: {refused}"
    assert not failed, f"reads that failed under a read grant: {failed}"
    # Use marks (a decay signal) flush a few seconds after a read.
    await asyncio.sleep(7)
    after = await namespace_rows(dsn, ns)
    assert [t for t in before if before[t] != after[t]] == []
    status = await admin_fetchval(dsn, "SELECT status FROM dreamer.proposals WHERE id = $1",
                                  uuid.UUID(pid))
    assert status == "open", "review_list expires nothing; a pass does"
