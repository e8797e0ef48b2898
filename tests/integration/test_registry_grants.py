"""Tests generated from the gateway's tool registry, over the real stack:
every operation that writes refuses a read-only grant, every reviewer or
operator operation refuses a principal without that role (over MCP and over
its REST route), and the tools/list a client sees carries each tool's
registry annotations. A new tool or action is covered by being registered."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from engram_gateway.registry import TOOLS, operations, tool
from engram_gateway.tools.spec import Access, Op, ToolSpec
from engram_runner.stack import Stack

from ..helpers import call, mcp_client, result_text

NO_ID = "00000000-0000-0000-0000-000000000000"
PATH_VALUES = {"entry_id": NO_ID, "name": "registry:test", "document_id": NO_ID,
               "fact_id": NO_ID, "mail_id": NO_ID, "conflict_id": NO_ID, "item_id": NO_ID,
               "run_id": NO_ID}


def _args(spec: ToolSpec, action: str, ns: str) -> dict[str, Any]:
    return {**spec.example, "namespace": ns, **({spec.action_arg: action} if action else {})}


async def _mcp_refusals(stack: Stack, token: str, ns: str, ops: list[tuple[ToolSpec, str, Op]],
                        expected: str) -> list[str]:
    """The operations that were not refused with `expected` in the error."""
    wrong = []
    async with mcp_client(stack.mcp_url, token) as client:
        for spec, action, _ in ops:
            result = await client.call_tool(spec.name, _args(spec, action, ns))
            text = result_text(result)
            if not result.is_error or expected not in text:
                wrong.append(f"{spec.name} {action}: {text[:200]}")
    return wrong


async def _rest_refusals(stack: Stack, token: str, ns: str, ops: list[tuple[ToolSpec, str, Op]],
                         expected: str) -> list[str]:
    wrong = []
    base = stack.mcp_url.removesuffix("/mcp")
    headers = {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
        for _, _, op in ops:
            if not op.rest:
                continue
            method, path = op.rest.split(" ")
            r = await http.request(method, path.format(**PATH_VALUES),
                                   json={} if method == "POST" else None)
            if r.status_code != 403 or expected not in r.json()["detail"]["detail"]:
                wrong.append(f"{op.rest}: {r.status_code} {r.text[:200]}")
    return wrong


def _needing(*access: Access) -> list[tuple[ToolSpec, str, Op]]:
    return [(s, a, o) for s, a, o in operations() if o.access in access]


async def test_every_write_refuses_a_read_only_grant(stack: Stack):
    ns = f"reg-{uuid.uuid4().hex[:6]}"
    # An operator, so that only the grant can be the reason for a refusal.
    reader = stack.principals.create(f"reg-ro-{ns}", "operator", [], [ns])
    writes = _needing(Access.WRITE, Access.ERASE, Access.REVIEWER, Access.OPERATOR)
    assert len(writes) > 30
    assert await _mcp_refusals(stack, reader, ns, writes, "read-only access") == []
    assert await _rest_refusals(stack, reader, ns, writes, "read-only access") == []


async def test_every_reviewer_or_operator_tool_refuses_an_agent(stack: Stack):
    ns = f"reg-{uuid.uuid4().hex[:6]}"
    agent = stack.principals.create(f"reg-agent-{ns}", "agent", [ns])
    reviewer = stack.principals.create(f"reg-rev-{ns}", "reviewer", [ns])
    for role in (Access.REVIEWER, Access.OPERATOR):
        ops = _needing(role)
        assert ops, role
        expected = f"needs the {role.value} role; you are agent"
        assert await _mcp_refusals(stack, agent, ns, ops, expected) == []
        assert await _rest_refusals(stack, agent, ns, ops, expected) == []
    operator_only = _needing(Access.OPERATOR)
    expected = "needs the operator role; you are reviewer"
    assert await _mcp_refusals(stack, reviewer, ns, operator_only, expected) == []
    assert await _rest_refusals(stack, reviewer, ns, operator_only, expected) == []


def _erasing() -> list[tuple[ToolSpec, str, Op, dict[str, Any]]]:
    """Every call the registry marks a permanent deletion: the ERASE
    operations, and those an `erase_when` flag makes one (with it set)."""
    calls = [(s, a, o, {}) for s, a, o in _needing(Access.ERASE)]
    return calls + [(s, a, o, {o.erase_when: True}) for s, a, o in operations()
                    if o.erase_when]


async def test_every_permanent_deletion_needs_the_erase_grant(stack: Stack):
    """An agent with a read-write grant is refused every erasure (and dream
    rollback) over MCP and REST, naming the erase grant; a reviewer's same
    calls get past the grant (they fail, if at all, on the made-up ids); the
    agent keeps the reversible form of the flagged tools."""
    ns = f"reg-{uuid.uuid4().hex[:6]}"
    agent = stack.principals.create(f"reg-era-{ns}", "agent", [ns])
    reviewer = stack.principals.create(f"reg-erv-{ns}", "reviewer", [ns])
    calls = _erasing()
    names = {(s.name, a) for s, a, _, _ in calls}
    for must in (("document_forget", ""), ("fact_forget", ""), ("world_retract", ""),
                 ("lesson_retire", ""), ("dream", "rollback")):
        assert must in names, must
    expected = "needs the erase grant (the reviewer or operator role); you are agent"
    wrong, passed = [], []
    async with mcp_client(stack.mcp_url, agent) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        for spec, action, _, flag in calls:
            args = _args(spec, action, ns) | flag
            text = result_text(await client.call_tool(spec.name, args))
            if expected not in text:
                wrong.append(f"{spec.name} {action}: {text[:200]}")
            reviewed = result_text(await rev.call_tool(spec.name, args))
            if "erase grant" in reviewed or "role" in reviewed:
                passed.append(f"{spec.name} {action}: {reviewed[:200]}")
        kept = await client.call_tool("world_retract", _args(tool("world_retract"), "", ns))
        assert "erase grant" not in result_text(kept)
    assert wrong == [] and passed == []
    rest_ops = [(s, a, o) for s, a, o, flag in calls if not flag]
    assert await _rest_refusals(stack, agent, ns, rest_ops, expected) == []


async def test_every_tool_lists_its_registry_annotations(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        listed = {t.name: t.annotations for t in (await client.list_tools()).tools}
    assert sorted(listed) == sorted(t.name for t in TOOLS)
    for spec in TOOLS:
        got = listed[spec.name]
        assert got is not None, spec.name
        assert got.idempotent_hint is spec.annotations.idempotent_hint, spec.name
        assert got.read_only_hint is spec.annotations.read_only_hint, spec.name
        assert got.destructive_hint is spec.annotations.destructive_hint, spec.name
        assert got.open_world_hint is False, spec.name


async def test_tools_marked_safe_to_repeat_have_no_second_effect(stack: Stack):
    """Two of the idempotentHint claims, checked: a repeated store is a
    restatement of the same entry, and a resent message with its
    request_id is delivered once."""
    ns = f"reg-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"reg-rep-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        text = {"text": f"The {ns} deploys go through the staging lease.", "namespace": ns}
        first, again = [await call(client, "memory_store", text) for _ in range(2)]
        assert again["id"] == first["id"] and again["finding"] == "restatement"
        me = (await call(client, "board_agents", {"action": "list", "namespace": ns}))["self"]
        send = {"action": "send", "to": me["id"] or "all", "text": "once",
                "request_id": f"r-{ns}", "namespace": ns}
        sent = await call(client, "board_message", send)
        resent = await call(client, "board_message", send)
        assert resent["duplicate"] and resent["receipts"] == sent["receipts"]
        inbox = await call(client, "board_message", {"action": "receive", "namespace": ns})
        assert [m["text"] for m in inbox["messages"]].count("once") == len(sent["receipts"])
