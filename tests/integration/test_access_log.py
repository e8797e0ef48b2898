"""The gateway's access records over the real stack: one per operation call,
whichever door it came through (MCP with the SDK's client, REST, the
console over plain HTTP), with the door, tool and outcome, including a call
refused at admission and a REST body refused after admission; and neither
the stored text, a refused argument's value nor a token is in the gateway's
log."""

from __future__ import annotations

import json
import secrets
import uuid
from typing import Any

import httpx

from engram_runner.stack import Stack

from ..helpers import call, call_error, eventually, mcp_client, ok_json, rest_client
from .test_console_signout import signed_in

ACCESS_LOGGER = "engram_gateway.access"


def access_records(stack: Stack, *principals: str) -> list[dict[str, Any]]:
    """The gateway's access records of these principals, in order."""
    log = stack.logs / "gateway.log"
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    out = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("logger") == ACCESS_LOGGER and entry.get("principal") in principals:
            out.append(entry)
    return out


async def test_each_door_leaves_one_access_record_per_call(stack: Stack):
    ns = f"access-{uuid.uuid4().hex[:6]}"
    agent, reviewer = f"agent-{ns}", f"rev-{ns}"
    agent_token = stack.principals.create(agent, "agent", [ns])
    reviewer_token = stack.principals.create(reviewer, "reviewer", [ns])
    marker = f"zq{secrets.token_hex(8)}"
    secret = f"sk-{secrets.token_hex(12)}"

    async with mcp_client(stack.mcp_url, agent_token) as client:
        await call(client, "memory_store", {"text": f"{marker} keeps the spare keys.",
                                            "namespace": ns})
        refused = await call_error(client, "memory_search", {"query": marker,
                                                             "namespace": f"not-{ns}"})
        assert "may not use namespace" in refused
    headers = {"Authorization": f"Bearer {agent_token}", "X-Engram-Namespace": ns}
    async with rest_client(stack, headers) as rest:
        await ok_json(await rest.get("/v1/memories/search", params={"query": marker}))
        # Admitted, then the body is refused by its model (a misspelt field).
        bad = await rest.post("/v1/memories", json={"text": secret, "tgs": [secret]})
        assert bad.status_code == 422
    base = stack.mcp_url.removesuffix("/mcp")
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        await signed_in(http, reviewer_token)
        page = await http.get("/console/search", params={"ns": ns, "q": marker})
        assert page.status_code == 200, page.text[:300]

    expected = [("mcp", agent, "memory_store", ns, "ok"),
                ("mcp", agent, "memory_search", f"not-{ns}", "permission_denied"),
                ("rest", agent, "memory_search", ns, "ok"),
                ("rest", agent, "memory_store", ns, "invalid_argument"),
                ("console", reviewer, "memory_search", ns, "ok")]

    async def all_written() -> bool:
        return len(access_records(stack, agent, reviewer)) >= len(expected)

    await eventually(all_written, 10, "the access records in the gateway's log")
    records = access_records(stack, agent, reviewer)
    seen = [(r["door"], r["principal"], r["tool"], r["namespace"], r["outcome"])
            for r in records]
    assert seen == expected
    for r in records:
        assert r["action"] == r["tool"] and r["latency_ms"] >= 0 and r["request_id"]
    assert [r["access"] for r in records] == ["write", "read", "read", "write", "read"]

    log = (stack.logs / "gateway.log").read_text(errors="replace")
    for needle in (marker, secret, agent_token, reviewer_token):
        assert needle not in log
