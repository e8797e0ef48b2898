"""Unknown arguments are refused, never dropped: every tool in tools/list (in
every toolset tier) and every REST body refuses a misspelt or made-up field
with an error that names it and lists the accepted ones, and nothing is
written. The advertised schemas say additionalProperties: false."""

from __future__ import annotations

import re
import uuid
from typing import Any

import asyncpg
import httpx

from engram_runner.stack import Stack

from ..helpers import call, mcp_client, result_text

BOGUS = "tgs_bogus"


def valid_looking(schema: dict[str, Any]) -> dict[str, Any]:
    """Values for the required properties that would pass on their own."""
    args: dict[str, Any] = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        if prop.get("type") == "array":
            args[name] = ["x"]
        elif prop.get("type") == "integer":
            args[name] = 1
        elif name.endswith("id") or name in ("src", "dst"):
            args[name] = str(uuid.uuid4()) if name.endswith("id") else "service.x"
        elif name.endswith("url"):
            args[name] = "https://example.org/x"
        else:
            args[name] = "a plain value"
    return args


async def namespaced_rows(dsn: str, namespace: str) -> dict[str, int]:
    """Row count of every table with a namespace column, for one namespace."""
    conn = await asyncpg.connect(dsn)
    try:
        tables = await conn.fetch(
            "SELECT table_schema, table_name FROM information_schema.columns c"
            " JOIN information_schema.tables t USING (table_schema, table_name)"
            " WHERE column_name = 'namespace' AND t.table_type = 'BASE TABLE'")
        counts = {}
        for t in tables:
            name = f'"{t["table_schema"]}"."{t["table_name"]}"'
            counts[name] = await conn.fetchval(
                f"SELECT count(*) FROM {name} WHERE namespace = $1", namespace)
        return counts
    finally:
        await conn.close()


def assert_refusal(text: str, tool: str, accepted: list[str]) -> None:
    assert BOGUS in text, f"{tool}: error does not name the unknown field: {text}"
    missing = [a for a in accepted if a not in text]
    assert not missing, f"{tool}: error does not list accepted {missing}: {text}"


async def test_every_tool_in_every_tier_refuses_unknown_arguments(stack: Stack, admin_dsn: str):
    ns = f"strict-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "operator", [ns])
    before = await namespaced_rows(admin_dsn, ns)
    seen: set[str] = set()
    async with mcp_client(stack.mcp_url, token) as client:
        for tier in ("minimal", "core", "full"):
            await call(client, "toolset", {"tier": tier})
            tools = (await client.list_tools()).tools
            assert tools, tier
            for tool in tools:
                schema = tool.input_schema
                args = {**valid_looking(schema), BOGUS: ["a"]}
                if "namespace" in schema["properties"]:
                    args["namespace"] = ns
                result = await client.call_tool(tool.name, args)
                assert result.is_error, f"{tool.name} accepted {BOGUS} in tier {tier}"
                assert_refusal(result_text(result), tool.name,
                               list(schema["properties"]))
                assert schema.get("additionalProperties") is False, tool.name
                seen.add(tool.name)
    assert len(seen) >= 40 and "memory_store" in seen and "board_lease" in seen
    assert await namespaced_rows(admin_dsn, ns) == before


async def test_misspelt_arguments_of_the_reported_tools(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        for tool, args in (
                ("memory_store", {"text": "Deploys go through staging first.", "tgs": ["ops"]}),
                ("fact_set", {"entity": "svc.api", "attribute": "owner", "value": "ana",
                              "evidence": "ana owns it"}),
                ("board_lease", {"action": "claim", "name": "deploy:x", "ttl": 60})):
            result = await client.call_tool(tool, args)
            assert result.is_error, f"{tool} accepted a misspelt argument"
            text = result_text(result)
            wrong = next(k for k in args if k not in ("text", "entity", "attribute", "value",
                                                      "action", "name"))
            assert repr(wrong) in text and "accepts" in text, text


def rest_bodies(openapi: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, body schema) of every route that takes a JSON body (an
    optional one is anyOf the schema and null)."""
    schemas = openapi["components"]["schemas"]
    routes = []
    for path, item in openapi["paths"].items():
        for method, op in item.items():
            content = op.get("requestBody", {}).get("content", {}).get("application/json")
            if content:
                body = content["schema"]
                ref = next(s["$ref"] for s in body.get("anyOf", [body]) if "$ref" in s)
                routes.append((method.upper(), path, schemas[ref.rsplit("/", 1)[-1]]))
    return routes


def fill_path(path: str) -> str:
    """The path with well-formed values for its parameters."""
    return re.sub(r"{(\w+)}", lambda m: "deploy:x" if m[1] == "name" else str(uuid.uuid4()),
                  path)


async def test_every_rest_body_refuses_unknown_fields(stack: Stack, admin_dsn: str):
    ns = f"strictrest-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "operator", [ns])
    auth = {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}
    base = stack.mcp_url.removesuffix("/mcp")
    before = await namespaced_rows(admin_dsn, ns)
    async with httpx.AsyncClient(timeout=30) as http:
        openapi = (await http.get(f"{base}/v1/openapi.json")).json()
        routes = rest_bodies(openapi)
        assert len(routes) >= 10
        for method, path, schema in routes:
            reply = await http.request(method, base + fill_path(path),
                                       json={**valid_looking(schema), BOGUS: 1}, headers=auth)
            assert reply.status_code == 422, f"{path}: {reply.status_code} {reply.text}"
            assert_refusal(reply.text, path, list(schema["properties"]))
            assert schema.get("additionalProperties") is False, path
    assert await namespaced_rows(admin_dsn, ns) == before


async def test_every_rest_query_refuses_unknown_parameters(stack: Stack, admin_dsn: str):
    ns = f"strictq-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "operator", [ns])
    auth = {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}
    base = stack.mcp_url.removesuffix("/mcp")
    async with httpx.AsyncClient(timeout=30) as http:
        openapi = (await http.get(f"{base}/v1/openapi.json")).json()
        routes = [(path, op) for path, item in openapi["paths"].items()
                  for method, op in item.items() if method == "get" and path.startswith("/v1/")]
        assert len(routes) >= 6
        for path, op in routes:
            query = {p["name"]: "x" for p in op.get("parameters", [])
                     if p["in"] == "query" and p.get("required")}
            url = base + path.replace("{entry_id}", str(uuid.uuid4()))
            reply = await http.get(url, params={**query, "tag": "infra"}, headers=auth)
            assert reply.status_code == 422, f"{path}: {reply.status_code} {reply.text}"
            accepted = [p["name"] for p in op.get("parameters", []) if p["in"] == "query"]
            assert "'tag'" in reply.text and all(a in reply.text for a in accepted), reply.text
        # A declared parameter still works.
        ok = await http.get(f"{base}/v1/memories/search", params={"query": "x", "tags": "a"},
                            headers=auth)
    assert ok.status_code == 200, ok.text
