"""MCP and REST answer with the same body, for every registry operation that
has a REST route, over the real stack. Generated from the registry: each
operation runs with its registry example (or, below, arguments that act on
a fixture state), keeping the arguments its route takes (the OpenAPI
document says which), once over MCP (the official SDK client) and once over
REST, as the same principal and client session.

- A read (Effect.NONE) must give equal bodies, less the fields that are each
  call's own (PER_CALL).
- A write acts twice, so the two bodies describe different things (new ids,
  times, a second call's finding): their shapes must be equal (the same keys,
  two levels deep, with values of the same JSON type).
- An error must be the same error (the MCP text is the REST detail); the
  operations compared on an error only are listed in ERROR_ONLY.

Operations without a REST route are listed in MCP_ONLY, so adding a route or
a tool without one is a visible change here."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from mcp import Client

from engram_gateway.registry import operations
from engram_gateway.tools.spec import Access, Effect, Op, ToolSpec
from engram_runner.stack import Stack

from ..helpers import call, mcp_client, rest_client, result_text

MCP_ONLY = {
    "memory_reinforce", "episode_start", "episode_end", "session_title", "set_add",
    "set_remove", "alias_add", "fact_verify", "relation_list", "relation_add", "world_set",
    "world_search", "outcome_record", "lesson_search", "tag_propose_root", "tag_alias",
    "toolset", "world_retract", "world_restore", "lesson_retire", "lesson_restore",
    "fact_forget",
}
# Operations compared on an error only (their example names nothing that
# exists): the fixture state has no proposal to decide or parked contender.
ERROR_ONLY = {"review_decide", "contender_decide"}
ROLE_OF = {Access.READ: "agent", Access.WRITE: "agent", Access.ERASE: "reviewer",
           Access.REVIEWER: "reviewer", Access.OPERATOR: "operator"}
TEXT = "The parity pipeline deploys through GitHub Actions on every merge."
# Two stores that neither restate nor contradict each other.
UNRELATED = ("The staging host of parity is named alder.",
             "Invoices of parity are archived every quarter.")
# Fields of a read's reply that differ between two identical calls: the
# call's own time (a board sighting, a changes cursor) and an estimate that
# background writes move. Left out of the comparison, wherever they are.
PER_CALL = {"last_seen", "cursor", "storage_bytes"}
# The MCP SDK puts this before a tool's error text.
SDK_ERROR = "Error executing tool "


@dataclass
class World:
    """The fixture state and one MCP and one REST client per role, all in
    one namespace and one client session."""

    stack: Stack
    ns: str
    mcp: dict[str, Client] = field(default_factory=dict)
    http: dict[str, httpx.AsyncClient] = field(default_factory=dict)
    ids: dict[str, Any] = field(default_factory=dict)

    async def do(self, tool: str, args: dict[str, Any], role: str = "agent") -> dict[str, Any]:
        return await call(self.mcp[role], tool, args | {"namespace": self.ns})

    async def entry(self, text: str) -> str:
        return (await self.do("memory_store", {"text": text}))["id"]

    async def mail_to_self(self, text: str) -> str:
        await self.do("board_message", {"action": "send", "to": self.ids["me"], "text": text})
        inbox = await self.do("board_message", {"action": "receive", "limit": 50})
        return next(m["id"] for m in inbox["messages"] if m["text"] == text)


Case = Callable[[World, int], Awaitable[dict[str, Any]]]


def fixed(args: dict[str, Any]) -> Case:
    async def case(w: World, i: int) -> dict[str, Any]:
        return args
    return case


def each(make: Callable[[World, int], dict[str, Any]]) -> Case:
    """Arguments that depend on the fixture state or differ per call."""
    async def case(w: World, i: int) -> dict[str, Any]:
        return make(w, i)
    return case


async def _supersede(w: World, i: int) -> dict[str, Any]:
    return {"entry_id": await w.entry(f"The parity cache lives in region {i}."),
            "new_text": f"The parity cache lives in region {i + 10}."}


async def _forget(w: World, i: int) -> dict[str, Any]:
    return {"entry_id": await w.entry(f"Forget me, parity note {i}."), "reason": "test"}


async def _consolidate(w: World, i: int) -> dict[str, Any]:
    ids = [await w.entry(f"Parity builds take {i * 2 + k} minutes.") for k in (1, 2)]
    return {"entry_ids": ids, "new_text": f"Parity builds take {i} minutes.", "reason": "r"}


async def _release(w: World, i: int) -> dict[str, Any]:
    await w.do("board_lease", {"action": "claim", "name": f"parity:release-{i}"})
    return {"name": f"parity:release-{i}"}


async def _ack(w: World, i: int) -> dict[str, Any]:
    return {"ids": [await w.mail_to_self(f"ack me {i}")]}


async def _redact(w: World, i: int) -> dict[str, Any]:
    return {"ids": [await w.mail_to_self(f"redact me {i}")]}


async def _mail_forget(w: World, i: int) -> dict[str, Any]:
    return {"mail_id": await w.mail_to_self(f"forget me {i}"), "reason": "test"}


async def _fact_retract(w: World, i: int) -> dict[str, Any]:
    await w.do("fact_set", {"entity": "parity-svc", "attribute": f"owner{i}", "value": "a"})
    return {"entity": "parity-svc", "attribute": f"owner{i}", "reason": "test"}


async def _unrelate(w: World, i: int) -> dict[str, Any]:
    edge = {"src": "parity-svc", "relation": "depends_on", "dst": f"parity-gone-{i}"}
    await w.do("graph_relate", edge)
    return edge


async def _document_forget(w: World, i: int) -> dict[str, Any]:
    doc = await w.do("document_ingest", {"content": f"Parity doc to forget {i}.",
                                         "source": f"forget-{i}"})
    return {"document_id": doc["id"], "reason": "test"}


async def _conflict(w: World, i: int) -> dict[str, Any]:
    slot = {"entity": f"parity-db-{i}", "attribute": "engine"}
    await w.do("fact_set", slot | {"value": "postgres"})
    other = await w.do("fact_set", slot | {"value": "mysql",
                                           "evidence_quote": "the db runs on mysql"})
    return {"conflict_id": other["conflict_id"], "reasoning": "both hold", "both_stand": True}


def _existing_token(what: str) -> Case:
    async def case(w: World, i: int) -> dict[str, Any]:
        name = f"pr-{w.ns}-{what}{i}"
        w.stack.principals.create(name, "agent", [w.ns])
        return {"name": name}
    return case


CASES: dict[str, Case] = {
    "memory_store": each(lambda w, i: {"text": UNRELATED[i]}),
    "memory_search": fixed({"query": "parity pipeline deploys"}),
    "memory_get": each(lambda w, i: {"id": w.ids["entry"]}),
    "memory_supersede": _supersede,
    "memory_forget": _forget,
    "memory_rescue": each(lambda w, i: {"entry_id": w.ids["entry"]}),
    "document_ingest": each(lambda w, i: {"content": f"Parity doc {i}.",
                                                 "source": f"doc-{i}"}),
    "document_search": fixed({"query": "parity runbook"}),
    "document_get": each(lambda w, i: {"document_id": w.ids["document"]}),
    "board_agents(action='list')": fixed({}),
    "board_agents(action='update')": each(lambda w, i: {"status": f"step {i}"}),
    "board_lease(action='list')": fixed({"name": "parity:"}),
    "board_lease(action='claim')": each(lambda w, i: {"name": f"parity:c{i}"}),
    "board_lease(action='renew')": fixed({"name": "parity:held"}),
    "board_lease(action='release')": _release,
    "board_message(action='send')": each(lambda w, i: {"to": w.ids["me"],
                                                              "text": f"hello {i}"}),
    "board_message(action='receive')": fixed({}),
    "board_message(action='ack')": _ack,
    "board_message(action='redact')": _redact,
    "fact_set": each(lambda w, i: {"entity": "parity-svc", "attribute": f"tier{i}",
                                          "value": "gold"}),
    "fact_get": fixed({"entity": "parity-pipeline", "attribute": "ci"}),
    "fact_history": fixed({"entity": "parity-pipeline"}),
    "fact_retract": _fact_retract,
    "graph_relate": each(lambda w, i: {"src": "parity-svc", "relation": "depends_on",
                                              "dst": f"parity-db-{i}"}),
    "graph_unrelate": _unrelate,
    "graph_neighbors": fixed({"entity": "parity-pipeline"}),
    "memory_recall": fixed({"query": "parity pipeline"}),
    "tokens(action='create')": each(lambda w, i: {"name": f"pc-{w.ns}-{i}",
                                                  "namespaces": [w.ns]}),
    "tokens(action='rotate')": _existing_token("rot"),
    "tokens(action='revoke')": _existing_token("rev"),
    "memory_consolidate": _consolidate,
    "conflict_resolve": _conflict,
    "episode_summary": each(lambda w, i: {"id": w.ids["episode"]}),
    "dream(action='detail')": each(lambda w, i: {"run_id": w.ids["run"]}),
    "dream(action='rollback')": each(lambda w, i: {"run_id": w.ids["run"], "dry_run": True}),
    "document_forget": _document_forget,
    "mail_forget": _mail_forget,
}


async def _build(w: World) -> None:
    """The fixture state: entries, a fact and an edge the searches find, a
    document, a held lease."""
    w.ids["entry"] = await w.entry(TEXT)
    await w.entry("Parity releases are cut on Tuesdays.")
    await w.do("fact_set", {"entity": "parity-pipeline", "attribute": "ci",
                            "value": "github actions"})
    await w.do("graph_relate", {"src": "parity-pipeline", "relation": "depends_on",
                                "dst": "parity-runner"})
    doc = await w.do("document_ingest", {"content": "The parity runbook: restart the runner, "
                                         "then re-run the pipeline.", "source": "runbook"})
    w.ids["document"] = doc["id"]
    await w.do("board_lease", {"action": "claim", "name": "parity:held"})
    w.ids["me"] = (await w.do("board_agents", {"action": "list"}))["self"]["id"]
    w.ids["episode"] = (await w.do("episode_start", {"title": "parity episode"}))["id"]
    await w.entry("Parity episodes group the entries stored while they are open.")
    await w.do("episode_end", {})
    w.ids["run"] = (await w.do("dream", {"action": "run"}))["run_id"]
    # The search below is compared with its facts block, not with an empty one.
    found = await w.do("memory_search", {"query": "parity pipeline deploys"})
    assert found["facts"], found


def _accepted(openapi: dict[str, Any], method: str, path: str) -> set[str]:
    """The argument names a route takes: path, query and body fields."""
    item = openapi["paths"][path][method.lower()]
    names = {p["name"] for p in item.get("parameters", ()) if p["in"] in ("path", "query")}
    body = item.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = body.get("schema", {}).get("$ref") or next(
        (s["$ref"] for s in body.get("schema", {}).get("anyOf", ()) if "$ref" in s), "")
    if ref:
        names |= set(openapi["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"])
    return names


async def _rest_call(http: httpx.AsyncClient, op: Op, args: dict[str, Any]) -> httpx.Response:
    method, template = op.rest.split(" ", 1)
    path_args = {k: v for k, v in args.items() if "{" + k + "}" in template}
    path = template.format(**path_args)
    rest = {k: v for k, v in args.items() if k not in path_args and v is not None}
    if method == "GET":
        params = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in rest.items()}
        return await http.get(path, params=params)
    return await http.request(method, path, json=rest)


async def _mcp_call(client: Client, spec: ToolSpec, action: str, ns: str,
                    args: dict[str, Any]) -> tuple[bool, Any]:
    full = args | {"namespace": ns} | ({spec.action_arg: action} if action else {})
    result = await client.call_tool(spec.name, full)
    if result.is_error:
        text = result_text(result)
        return False, text.split(": ", 1)[1] if text.startswith(SDK_ERROR) else text
    return True, result.structured_content or json.loads(result_text(result))


def _rest_body(r: httpx.Response) -> tuple[bool, Any]:
    body = r.json()
    if r.status_code == 200:
        return True, body
    detail = body.get("detail", body)
    return False, detail.get("detail", detail) if isinstance(detail, dict) else detail


def shape(value: Any, depth: int = 2) -> Any:
    """The JSON shape of a value: its keys and theirs (deeper dicts are maps
    whose keys are data), each value's JSON type."""
    if isinstance(value, dict) and depth:
        return {k: shape(v, depth - 1) for k, v in value.items()}
    return type(value).__name__


def steady(value: Any) -> Any:
    """A read's reply without its PER_CALL fields."""
    if isinstance(value, dict):
        return {k: steady(v) for k, v in value.items() if k not in PER_CALL}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def test_the_operations_without_a_rest_route_are_listed():
    assert {s.label(a) for s, a, o in operations() if not o.rest} == MCP_ONLY


async def test_mcp_and_rest_return_the_same_body(stack: Stack):
    ns = f"par-{uuid.uuid4().hex[:6]}"
    session = f"parity-{ns}"
    w = World(stack, ns)
    tokens = {role: stack.principals.create(f"par-{role}-{ns}", role, [ns])
              for role in ("agent", "reviewer", "operator")}
    async with rest_client(stack, {}) as anon:
        openapi = (await anon.get("/v1/openapi.json")).json()
    differ: list[str] = []
    errors: list[str] = []
    async with mcp_client(stack.mcp_url, tokens["agent"], session) as agent, \
            mcp_client(stack.mcp_url, tokens["reviewer"], session) as reviewer, \
            mcp_client(stack.mcp_url, tokens["operator"], session) as operator:
        w.mcp = {"agent": agent, "reviewer": reviewer, "operator": operator}
        w.http = {role: rest_client(stack, {"Authorization": f"Bearer {token}",
                                            "X-Engram-Namespace": ns,
                                            "X-Engram-Session": session})
                  for role, token in tokens.items()}
        await _build(w)
        for spec, action, op in [(s, a, o) for s, a, o in operations() if o.rest]:
            differ += await _compare(w, openapi, spec, action, op, errors)
        for http in w.http.values():
            await http.aclose()
    assert differ == [], "\n".join(differ)
    assert set(errors) == ERROR_ONLY


Reply = tuple[bool, Any]  # (succeeded, body or error text)
SETTLE_TRIES = 5


@dataclass(frozen=True)
class Runner:
    """One operation over both transports, with arguments both take."""

    w: World
    spec: ToolSpec
    action: str
    op: Op
    takes: set[str]

    @property
    def role(self) -> str:
        return ROLE_OF[self.op.access]

    @property
    def names(self) -> dict[str, str]:
        return dict(self.op.rest_names)

    async def args(self, i: int) -> dict[str, Any]:
        case = CASES.get(self.spec.label(self.action)) or fixed(dict(self.spec.example))
        return {k: v for k, v in (await case(self.w, i)).items()
                if k != self.spec.action_arg and self.names.get(k, k) in self.takes}

    async def mcp(self, args: dict[str, Any]) -> Reply:
        return await _mcp_call(self.w.mcp[self.role], self.spec, self.action, self.w.ns, args)

    async def rest(self, args: dict[str, Any]) -> Reply:
        renamed = {self.names.get(k, k): v for k, v in args.items()}
        return _rest_body(await _rest_call(self.w.http[self.role], self.op, renamed))


async def _read_pair(run: Runner) -> tuple[Reply, Reply]:
    """A read over MCP, REST, then MCP again: when the two MCP replies differ,
    something in the background moved the state meanwhile (an audit row, an
    event consumer), so the pair is taken again."""
    args = await run.args(0)
    for _ in range(SETTLE_TRIES):
        before, rest, after = await run.mcp(args), await run.rest(args), await run.mcp(args)
        if _same_read(before, after):
            return before, rest
    raise AssertionError(f"{run.spec.label(run.action)}: the state never settled")


def _same_read(a: Reply, b: Reply) -> bool:
    return a[0] == b[0] and (steady(a[1]) == steady(b[1]) if a[0] else a[1] == b[1])


async def _compare(w: World, openapi: dict[str, Any], spec: ToolSpec, action: str,
                   op: Op, errors: list[str]) -> list[str]:
    """What differs between the operation's MCP and REST replies; `errors`
    gets its label when both failed."""
    label = spec.label(action)
    method, path = op.rest.split(" ", 1)
    run = Runner(w, spec, action, op, _accepted(openapi, method, path))
    if op.effect is Effect.NONE:
        (mcp_ok, mcp_body), (rest_ok, rest_body) = await _read_pair(run)
    else:
        (mcp_ok, mcp_body), (rest_ok, rest_body) = (await run.mcp(await run.args(0)),
                                                    await run.rest(await run.args(1)))
    if mcp_ok != rest_ok:
        return [f"{label}: MCP {'ok' if mcp_ok else 'error'} {str(mcp_body)[:300]} / "
                f"REST {'ok' if rest_ok else 'error'} {str(rest_body)[:300]}"]
    if not mcp_ok:
        errors.append(label)
        same = mcp_body == rest_body
    elif op.effect is Effect.NONE:
        same = steady(mcp_body) == steady(rest_body)
    else:
        same = shape(mcp_body) == shape(rest_body)
    return [] if same else [f"{label}: MCP {mcp_body} / REST {rest_body}"]
