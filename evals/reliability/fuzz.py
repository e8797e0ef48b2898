"""Fuzzing and isolation scenarios of the reliability campaign: every MCP
tool with arguments from its own schema (hypothesis, shrunk to a minimal
example per tool), every REST route from the OpenAPI document
(schemathesis), and a randomized multi-principal run over every read path."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from hypothesis import HealthCheck, given, settings
from hypothesis_jsonschema import from_schema
from mcp import Client

from evals.reliability.faults import EngramUp
from evals.reliability.load import classify_mcp

BANNED = ("internal error", "Traceback", "Exception", "asyncpg", "grpc")


async def _client_call(url: str, token: str, tool: str | None, args: dict[str, Any]) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with Client(streamable_http_client(url, http_client=http)) as client:
        await client.call_tool("toolset", {"tier": "full"})
        if tool is None:
            return (await client.list_tools()).tools
        return await client.call_tool(tool, args)


CALLS = [0]


def fuzz_one(up: EngramUp, token: str, name: str, schema: dict[str, Any], examples: int,
             seen: list[tuple[dict, str]]) -> Any:
    """A hypothesis test for one tool; on failure hypothesis shrinks the
    arguments, so the last one recorded is the minimal example."""
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              # hypothesis' enum metaclass leaves __iter__ untyped
              suppress_health_check=list(HealthCheck))  # pyright: ignore[reportArgumentType]
    @given(from_schema(schema))
    def one(args: dict[str, Any]) -> None:
        CALLS[0] += 1
        try:
            result = asyncio.run(_client_call(up.s.mcp_url, token, name, args))
        except Exception as exc:  # noqa: BLE001 (a protocol-level failure)
            seen.append((args, repr(exc)[:300]))
            raise AssertionError(repr(exc)) from None
        _, text = classify_mcp(result)
        if result.is_error and any(b in text for b in BANNED):
            seen.append((args, text[:300]))
            raise AssertionError(text)
    return one


def fuzz_mcp(up: EngramUp, examples: int) -> dict[str, Any]:
    """Per tool: hypothesis over its input schema; a failure is shrunk to a
    minimal example. Any outcome is fine except an untyped error."""
    ns = f"fuzz-{uuid.uuid4().hex[:6]}"
    token = up.s.principals.create(f"fz-{ns}", "agent", [ns])
    tools = asyncio.run(_client_call(up.s.mcp_url, token, None, {}))
    per_tool = max(3, examples // max(len(tools), 1))
    failures: dict[str, Any] = {}
    CALLS[0] = 0
    for tool in tools:
        schema = dict(tool.input_schema)
        props = {k: v for k, v in schema.get("properties", {}).items() if k != "namespace"}
        schema = {**schema, "properties": props,
                  "required": [r for r in schema.get("required", []) if r in props]}
        seen: list[tuple[dict, str]] = []
        try:
            fuzz_one(up, token, tool.name, schema, per_tool, seen)()
        except AssertionError:
            failures[tool.name] = {"minimal_args": seen[-1][0], "error": seen[-1][1]}
        except Exception as exc:  # noqa: BLE001 (schema the generator cannot handle)
            failures[tool.name] = {"harness_error": repr(exc)[:300]}
    calls = CALLS[0]
    return {"holds": not failures, "tools": len(tools), "calls": calls,
            "examples_per_tool": per_tool, "failures": failures}


OPS_PATHS = r"^/(healthz|readyz|metrics)$"
# A value schemathesis drew at a bound (a megabyte of "a") says nothing past its first bytes.
_RUN = re.compile(r"(.)\1{40,}", re.S)


def role_gated_paths() -> str:
    """A path regex of the REST routes only a reviewer or an operator may call,
    from the gateway's registry: the agent run sees them refused (403), so an
    operator's run fuzzes their validation and handlers."""
    from engram_gateway.registry import operations
    from engram_gateway.tools.spec import Access
    paths = sorted({o.rest.split(" ", 1)[1] for _, _, o in operations()
                    if o.rest and o.access in (Access.REVIEWER, Access.OPERATOR)})
    return "^(" + "|".join(re.sub(r"\\{\w+\\}", "[^/]+", re.escape(p)) for p in paths) + ")$"


def _reason(text: str) -> str:
    """A failure's text, readable: long runs elided, at most 600 characters."""
    text = _RUN.sub(lambda m: f"{m.group(1) * 8}...<{len(m.group(0))} x {m.group(1)!r}>", text)
    return text.strip()[:600]


def junit_failures(junit: str) -> list[dict[str, str]]:
    """Every operation the JUnit report marks failed (a check that failed) or
    errored (no answer: a dropped connection, a timeout), with why."""
    if not junit.strip():
        return []
    failed = []
    for case in ElementTree.fromstring(junit).iter("testcase"):
        for outcome in case:
            if outcome.tag in ("failure", "error"):
                failed.append({"operation": case.get("name", "?"), "outcome": outcome.tag,
                               "reason": _reason(outcome.text or outcome.get("message") or "")})
    return failed


def schemathesis_run(url: str, token: str, examples: int, budget_s: float,
                     paths: list[str]) -> dict[str, Any]:
    """One schemathesis run within `budget_s`; holds only when it finished, exited 0
    and its report names no failure. A run that does not hold always names what
    failed: the operations, or the whole run (a crash, a timeout) with why."""
    with tempfile.TemporaryDirectory() as tmp:
        junit_path = Path(tmp) / "junit.xml"
        cmd = [str(Path(sys.executable).parent / "schemathesis"), "run", url,
               "-H", f"Authorization: Bearer {token}", "-n", str(examples),
               "-c", "not_a_server_error", "--seed", "1", *paths,
               "--request-timeout", "30", "--report", "junit",
               "--report-junit-path", str(junit_path)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=budget_s,
                                  cwd=tmp)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) \
                else exc.stdout or ""
            return {"holds": False, "exit_code": None, "failed_operations": [
                {"operation": "(whole run)", "outcome": "timeout",
                 "reason": f"did not finish within its budget of {budget_s:g} s"}],
                "summary": [], "output_tail": _reason(out[-1500:])}
        junit = junit_path.read_text() if junit_path.exists() else ""
    out = proc.stdout + proc.stderr
    failed = junit_failures(junit)
    if (proc.returncode != 0 or not junit) and not failed:
        failed = [{"operation": "(whole run)", "outcome": "error",
                   "reason": f"schemathesis exited {proc.returncode} and its report names no "
                             f"operation: {_reason(out[-600:])}"}]
    summary = [line.strip() for line in out.splitlines()
               if re.search(r"\d+ (passed|failed|generated)", line)]
    return {"holds": not failed, "exit_code": proc.returncode, "failed_operations": failed,
            "summary": summary[-4:], "output_tail": _reason(out[-1500:]) if failed else ""}


def fuzz_rest(up: EngramUp, examples: int, budget_s: float) -> dict[str, Any]:
    """schemathesis over /v1/openapi.json, 0 server errors and 0 dropped
    connections: every route as an agent, then the routes only a reviewer or an
    operator may call as an operator. Each run is bounded by `budget_s`."""
    url = f"{up.rest_url}/v1/openapi.json"
    # ops endpoints are not the API: /readyz answers 503 by design while a
    # dependency is down, and they take no input to fuzz
    runs = {}
    for role, paths in (("agent", ["--exclude-path-regex", OPS_PATHS]),
                        ("operator", ["--include-path-regex", role_gated_paths()])):
        ns = f"fuzzrest-{uuid.uuid4().hex[:6]}"
        token = up.s.principals.create(f"fz-rest-{role}-{ns}", role, [ns])
        runs[role] = schemathesis_run(url, token, examples, budget_s, paths)
    failed = [{"as": role, **f} for role, r in runs.items() for f in r["failed_operations"]]
    return {"holds": all(r["holds"] for r in runs.values()), "examples_per_operation": examples,
            "budget_s_per_run": budget_s, "failed_operations": failed,
            "summary": {role: r["summary"] for role, r in runs.items()},
            "exit_codes": {role: r["exit_code"] for role, r in runs.items()},
            "output_tail": {role: r["output_tail"] for role, r in runs.items() if r["output_tail"]}}


READS: list[tuple[str, dict[str, Any]]] = [
    ("memory_search", {"query": "secret marker"}), ("memory_recent", {"n": 50}),
    ("fact_get", {"entity": "vault", "attribute": "code"}),
    ("graph_neighbors", {"entity": "vault"}), ("memory_recall", {"query": "vault code"}),
    ("document_search", {"query": "secret marker"}), ("board_message", {"action": "receive"}),
    ("board_lease", {"action": "list"}), ("board_agents", {"action": "list"}),
    ("briefing", {}),
]


async def isolation(up: EngramUp, principals: int, rounds: int, seed: int = 7) -> dict[str, Any]:
    """Each principal writes a unique marker in its own namespace by every
    write path the reads cover; then every read path, as every principal, in
    random order: a reply that carries another principal's marker is a
    cross-namespace read."""
    rng = random.Random(seed)
    people = []
    for i in range(principals):
        ns = f"iso{i}-{uuid.uuid4().hex[:6]}"
        marker = f"zq{uuid.uuid4().hex[:10]}"
        people.append((up.s.principals.create(f"iso-{ns}", "agent", [ns]), ns, marker))
    errors: list[str] = []
    for token, _, marker in people:
        errors += await write_markers(up, token, marker)
    leaks: list[str] = []
    calls = 0
    for _ in range(rounds):
        token, _, own = rng.choice(people)
        tool, args = rng.choice(READS)
        result = await _client_call(up.s.mcp_url, token, tool, args)
        calls += 1
        text = json.dumps(result.structured_content) if result.structured_content else \
            " ".join(getattr(c, "text", "") for c in result.content)
        for _, _, marker in people:
            if marker != own and marker in text:
                leaks.append(f"{tool}{args} as owner of {own} saw {marker}")
    export = await export_leaks(up, people)
    return {"holds": not leaks and not export, "principals": principals, "read_calls": calls,
            "cross_namespace_reads": len(leaks) + len(export), "examples": (leaks + export)[:5],
            "write_errors": errors[:10]}


async def write_markers(up: EngramUp, token: str, marker: str) -> list[str]:
    """The marker through every write path the reads cover, in one session."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    errors = []
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with Client(streamable_http_client(up.s.mcp_url, http_client=http)) as client:
        await client.call_tool("toolset", {"tier": "full"})
        me = await client.call_tool("board_agents", {"action": "list"})
        self_id = (me.structured_content or {}).get("self", {}).get("id", "")
        for tool, args in [("memory_store", {"text": f"secret marker {marker} vault code"}),
                           ("fact_set", {"entity": "vault", "attribute": "code",
                                         "value": marker}),
                           ("graph_relate", {"src": "vault", "relation": "depends_on",
                                             "dst": f"obj{marker}"}),
                           ("document_ingest", {"title": f"doc {marker}", "source": "campaign",
                                                "content": f"secret marker {marker} text"}),
                           ("board_lease", {"action": "claim", "name": f"lease{marker}"}),
                           ("board_message", {"action": "send", "to": self_id,
                                              "text": f"mail {marker}"})]:
            result = await client.call_tool(tool, args)
            if result.is_error:
                errors.append(f"{tool}: {classify_mcp(result)[1][:160]}")
    return errors


async def export_leaks(up: EngramUp, people: list[tuple[str, str, str]]) -> list[str]:
    """engram export of one namespace carries no other namespace's marker."""
    leaks = []
    with tempfile.TemporaryDirectory() as tmp:
        _, ns, _ = people[0]
        out = Path(tmp) / "export.jsonl"
        proc = subprocess.run([sys.executable, "-m", "engram_cli", "export", "--namespace", ns,
                               "--out", str(out), "--data-dir", str(up.data_dir)],
                              capture_output=True, text=True, timeout=300,
                              env={**__import__("os").environ,
                                   "ENGRAM_PORT_OFFSET": str(up.port_offset)})
        if proc.returncode != 0:
            return [f"export failed: {proc.stderr[-300:]}"]
        blob = out.read_text(errors="replace") if out.exists() else ""
        leaks = [f"export of {ns} carries {m}" for _, _, m in people[1:] if m in blob]
    return leaks
