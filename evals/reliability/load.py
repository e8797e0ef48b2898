"""The mixed load of the reliability campaign: several clients at once, over
MCP and REST, each storing, superseding, forgetting, searching, setting facts,
claiming board leases and sending mail, and a ledger of every write the stack
acknowledged, so the campaign can read each one back after a fault.

A call ends in one of these outcomes:
- ok: the stack acknowledged it;
- retryable: a typed error that says to retry (MCP "retry shortly", REST 503);
- typed: any other typed error (MCP tool error, REST 4xx);
- untyped: MCP "internal error", REST 5xx other than 503, a JSON-RPC error;
- transport: the connection failed (refused, reset);
- hang: no answer within the call timeout."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from evals.harness.benchlib import tool_text

CALL_TIMEOUT_S = 20.0
WRITE_RETRIES = 3


class Outcome(StrEnum):
    OK = "ok"
    RETRYABLE = "retryable"
    TYPED = "typed"
    UNTYPED = "untyped"
    TRANSPORT = "transport"
    HANG = "hang"


FAILURES = (Outcome.UNTYPED, Outcome.TRANSPORT, Outcome.HANG)


@dataclass
class Ledger:
    """Acknowledged writes, per principal token, and every call's outcome."""
    stored: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (token, text)
    forgotten: set[str] = field(default_factory=set)
    superseded: set[str] = field(default_factory=set)
    facts: dict[tuple[str, str, str], str] = field(default_factory=dict)  # token,ent,attr
    mail: set[str] = field(default_factory=set)  # acknowledged texts
    outcomes: Counter = field(default_factory=Counter)  # (tool, outcome)
    samples: dict[str, str] = field(default_factory=dict)  # first text per (tool, outcome)
    latency: dict[str, list[float]] = field(default_factory=dict)
    timeline: list[tuple[float, str]] = field(default_factory=list)  # (t, outcome)
    embedded_false: int = 0
    search_modes: Counter = field(default_factory=Counter)

    def record(self, tool: str, outcome: Outcome, seconds: float, text: str = "") -> None:
        self.outcomes[(tool, outcome)] += 1
        self.timeline.append((time.monotonic(), outcome))
        if outcome == Outcome.OK:
            self.latency.setdefault(tool, []).append(seconds)
        elif f"{tool}:{outcome}" not in self.samples:
            self.samples[f"{tool}:{outcome}"] = text[:300]

    def summary(self, since: float = 0.0) -> dict[str, Any]:
        by_outcome: Counter = Counter()
        for (_, outcome), n in self.outcomes.items():
            by_outcome[outcome] += n
        total = sum(by_outcome.values())
        return {"calls": total, "outcomes": dict(by_outcome),
                "failure_rate": round(sum(by_outcome[o] for o in FAILURES) / max(total, 1), 4),
                "acknowledged_stores": len(self.stored), "embedded_false": self.embedded_false,
                "search_modes": dict(self.search_modes), "error_samples": dict(self.samples)}

    def latency_table(self) -> dict[str, dict[str, float]]:
        table = {}
        for tool, values in sorted(self.latency.items()):
            ms = sorted(v * 1000 for v in values)
            if len(ms) < 2:
                continue
            q = statistics.quantiles(ms, n=100)
            table[tool] = {"n": len(ms), "p50_ms": round(statistics.median(ms), 1),
                           "p95_ms": round(q[94], 1), "p99_ms": round(q[98], 1)}
        return table

    def window(self, start: float, end: float) -> Counter:
        return Counter(o for t, o in self.timeline if start <= t <= end)


def classify_mcp(result: Any) -> tuple[Outcome, str]:
    if not result.is_error:
        return Outcome.OK, ""
    text = " ".join(getattr(c, "text", "") for c in result.content)
    if "internal error" in text or "Traceback" in text:
        return Outcome.UNTYPED, text
    if "retry" in text.lower():
        return Outcome.RETRYABLE, text
    return Outcome.TYPED, text


async def timed_call(client: Client, ledger: Ledger, tool: str, args: dict[str, Any],
                     classify: Callable[[Any], tuple[Outcome, str]]) -> tuple[Outcome, Any]:
    """One MCP tool call, timed and recorded in the ledger: its outcome, and
    the result when it succeeded (else None)."""
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(client.call_tool(tool, args), CALL_TIMEOUT_S)
    except TimeoutError:
        ledger.record(tool, Outcome.HANG, CALL_TIMEOUT_S, "no answer")
        return Outcome.HANG, None
    except Exception as exc:  # noqa: BLE001 (a JSON-RPC error or a dropped session)
        outcome = Outcome.UNTYPED if "McpError" in type(exc).__name__ else Outcome.TRANSPORT
        ledger.record(tool, outcome, 0.0, repr(exc))
        return outcome, None
    outcome, text = classify(result)
    ledger.record(tool, outcome, time.perf_counter() - started, text)
    return outcome, result if outcome == Outcome.OK else None


async def retried(call: Callable[[], Awaitable[tuple[Outcome, Any]]],
                  retry_on: tuple[Outcome, ...]) -> tuple[Outcome, Any]:
    """Repeat `call` while its outcome is one of `retry_on`, with a growing
    pause, at most WRITE_RETRIES times."""
    outcome, reply = Outcome.TRANSPORT, None
    for attempt in range(WRITE_RETRIES):
        outcome, reply = await call()
        if outcome not in retry_on:
            break
        await asyncio.sleep(0.5 * (attempt + 1))
    return outcome, reply


def campaign_text(name: str, seq: int, rng: random.Random) -> str:
    """One load client's next note: unique, with a random port to remember."""
    return (f"campaign note {name}-{seq} {uuid.uuid4().hex[:8]}: the "
            f"{rng.choice(['deploy', 'billing', 'search', 'queue'])} service "
            f"uses port {rng.randint(1000, 9999)}")


def classify_rest(resp: httpx2.Response) -> tuple[Outcome, str]:
    if resp.status_code < 400:
        return Outcome.OK, ""
    if resp.status_code == 503:
        return Outcome.RETRYABLE, resp.text
    if resp.status_code >= 500:
        return Outcome.UNTYPED, f"{resp.status_code} {resp.text}"
    return Outcome.TYPED, f"{resp.status_code} {resp.text}"


class Agent:
    """One client: MCP or REST, one principal (token), its own writes."""

    def __init__(self, name: str, token: str, url: str, rest_url: str, transport: str,
                 ledger: Ledger, seed: int) -> None:
        self.name, self.token, self.transport = name, token, transport
        self.url, self.rest_url, self.ledger = url, rest_url, ledger
        self.rng = random.Random(seed)
        self.mine: list[str] = []
        self.client: Client | None = None
        self.http: httpx2.AsyncClient | None = None
        self.peer: str = ""
        self.seq = 0

    async def open(self, es: AsyncExitStack) -> None:
        headers = {"Authorization": f"Bearer {self.token}", "X-Engram-Session": self.name}
        self.http = await es.enter_async_context(httpx2.AsyncClient(
            headers=headers, timeout=CALL_TIMEOUT_S))
        if self.transport == "mcp":
            self.client = await es.enter_async_context(
                Client(streamable_http_client(self.url, http_client=self.http)))
            await self.client.call_tool("toolset", {"tier": "full"})

    async def mcp(self, tool: str, args: dict[str, Any]) -> tuple[Outcome, Any]:
        assert self.client is not None
        outcome, result = await timed_call(self.client, self.ledger, tool, args, classify_mcp)
        if result is None:
            return outcome, None
        return outcome, result.structured_content or json.loads(tool_text(result))

    async def rest(self, tool: str, method: str, path: str, **kw: Any) -> tuple[Outcome, Any]:
        assert self.http is not None
        started = time.perf_counter()
        try:
            resp = await asyncio.wait_for(self.http.request(method, self.rest_url + path, **kw),
                                          CALL_TIMEOUT_S)
        except TimeoutError:
            self.ledger.record(tool, Outcome.HANG, CALL_TIMEOUT_S, "no answer")
            return Outcome.HANG, None
        except httpx2.HTTPError as exc:
            outcome = (Outcome.HANG if isinstance(exc, httpx2.TimeoutException)
                       else Outcome.TRANSPORT)
            self.ledger.record(tool, outcome, 0.0, repr(exc))
            return outcome, None
        outcome, text = classify_rest(resp)
        self.ledger.record(tool, outcome, time.perf_counter() - started, text)
        return outcome, resp.json() if outcome == Outcome.OK else None

    async def write(self, call: Any) -> tuple[Outcome, Any]:
        """A write the way a careful client makes it: retried on a retryable,
        transport or hang outcome (duplicates this causes are counted later)."""
        return await retried(call, (Outcome.RETRYABLE, Outcome.TRANSPORT, Outcome.HANG))

    def text(self) -> str:
        self.seq += 1
        return campaign_text(self.name, self.seq, self.rng)

    async def store(self) -> None:
        text = self.text()
        if self.transport == "mcp":
            outcome, reply = await self.write(lambda: self.mcp("memory_store", {"text": text}))
        else:
            outcome, reply = await self.write(lambda: self.rest(
                "rest_store", "POST", "/v1/memories", json={"text": text}))
        if outcome == Outcome.OK:
            self.ledger.stored[reply["id"]] = (self.token, text)
            self.ledger.embedded_false += not reply.get("embedded", True)
            self.mine.append(reply["id"])

    async def supersede(self) -> None:
        if not self.mine:
            return await self.store()
        old, text = self.mine.pop(self.rng.randrange(len(self.mine))), self.text()
        if self.transport == "mcp":
            outcome, reply = await self.write(lambda: self.mcp(
                "memory_supersede", {"entry_id": old, "new_text": text}))
        else:
            outcome, reply = await self.write(lambda: self.rest(
                "rest_supersede", "POST", f"/v1/memories/{old}/supersede",
                json={"new_text": text}))
        if outcome == Outcome.OK:
            self.ledger.superseded.add(old)
            self.ledger.stored[reply["id"]] = (self.token, text)
            self.mine.append(reply["id"])

    async def forget(self) -> None:
        if len(self.mine) < 3:
            return await self.store()
        old = self.mine.pop(0)
        if self.transport == "mcp":
            outcome, _ = await self.write(lambda: self.mcp(
                "memory_forget", {"entry_id": old, "reason": "campaign"}))
        else:
            outcome, _ = await self.write(lambda: self.rest(
                "rest_forget", "POST", f"/v1/memories/{old}/forget", json={"reason": "campaign"}))
        if outcome == Outcome.OK:
            self.ledger.forgotten.add(old)

    async def search(self) -> None:
        query = f"which port does the {self.rng.choice(['deploy', 'billing', 'queue'])} use"
        if self.transport == "mcp":
            outcome, reply = await self.mcp("memory_search", {"query": query})
        else:
            outcome, reply = await self.rest("rest_search", "GET", "/v1/memories/search",
                                             params={"query": query})
        if outcome == Outcome.OK and isinstance(reply, dict):
            self.ledger.search_modes[str(reply.get("mode", "?"))] += 1

    async def fact(self) -> None:
        if self.transport != "mcp":
            return await self.search()
        entity, attr = f"svc-{self.name}", f"port-{self.rng.randint(0, 5)}"
        value = str(self.rng.randint(1000, 9999))
        outcome, _ = await self.write(lambda: self.mcp(
            "fact_set", {"entity": entity, "attribute": attr, "value": value,
                         "replaces": True}))
        if outcome == Outcome.OK:
            self.ledger.facts[(self.token, entity, attr)] = value

    async def board(self) -> None:
        lease = f"campaign-lease-{self.rng.randint(0, 4)}"
        if self.transport == "mcp":
            outcome, reply = await self.mcp("board_lease", {"action": "claim", "name": lease,
                                                            "ttl_seconds": 5, "queue": False})
            if outcome == Outcome.OK and reply.get("granted"):
                await self.mcp("board_lease", {"action": "release", "name": lease})
        else:
            outcome, reply = await self.rest("rest_claim", "POST",
                                             f"/v1/board/leases/{lease}/claim",
                                             json={"ttl_seconds": 5, "queue": False})
            if outcome == Outcome.OK and reply.get("granted"):
                await self.rest("rest_release", "POST", f"/v1/board/leases/{lease}/release",
                                json={})

    async def mail(self) -> None:
        if self.transport != "mcp" or not self.peer:
            return await self.board()
        text, request_id = f"mail {uuid.uuid4().hex}", uuid.uuid4().hex
        outcome, _ = await self.write(lambda: self.mcp("board_message", {
            "action": "send", "to": self.peer, "text": text, "request_id": request_id}))
        if outcome == Outcome.OK:
            self.ledger.mail.add(text)

    async def loop(self, stop: asyncio.Event, pace_s: float) -> None:
        ops = [(self.store, 5), (self.search, 5), (self.supersede, 2), (self.forget, 1),
               (self.fact, 2), (self.board, 2), (self.mail, 1)]
        weights = [w for _, w in ops]
        while not stop.is_set():
            op = self.rng.choices([o for o, _ in ops], weights)[0]
            await op()
            if pace_s:
                await asyncio.sleep(pace_s * self.rng.random())

    async def run(self, stop: asyncio.Event, pace_s: float, peers: dict[str, str]) -> None:
        """The loop in a session of its own; a session the server dropped (a
        killed gateway) is recorded and opened again, as a client would."""
        while not stop.is_set():
            try:
                async with AsyncExitStack() as es:
                    await self.open(es)
                    await self.join(peers)
                    await self.loop(stop, pace_s)
            except Exception as exc:  # noqa: BLE001 (the session's task group failed)
                self.ledger.record("session", Outcome.TRANSPORT, 0.0, repr(exc))
                await asyncio.sleep(1.0)

    async def join(self, peers: dict[str, str]) -> None:
        """Mail goes to another agent of the load, by its board id."""
        if self.transport != "mcp":
            return
        outcome, reply = await self.mcp("board_agents", {"action": "list"})
        if outcome == Outcome.OK:
            peers[self.name] = reply["self"]["id"]
        others = [v for k, v in peers.items() if k != self.name]
        self.peer = self.rng.choice(others) if others else ""


def make_agents(tokens: list[str], url: str, rest_url: str, n: int, ledger: Ledger,
                mcp_share: float = 0.7) -> list[Agent]:
    """n agents round-robin over the tokens; about mcp_share of them over MCP."""
    return [Agent(f"a{i}", tokens[i % len(tokens)], url, rest_url,
                  "mcp" if (i % 10) < mcp_share * 10 else "rest", ledger, i)
            for i in range(n)]
