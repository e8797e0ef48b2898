"""The reliability campaign's kill and load scenarios against the peer,
Pseudolife-MCP (lite tier, reliability_peer_daemon), reported beside engram
in the same artefact. Where a scenario does not apply to the peer, the
artefact says so and why; where the peer cannot be installed or run, it
records the exact failure, never a number.

Usage (alone, for a look): .venv/bin/python -m evals.reliability.peer [--smoke]"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import asyncpg
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from evals.harness.benchlib import stop_stack_on_sigterm
from evals.harness.peer_daemon import PACKAGE, PeerDaemon, PeerUnavailable, ensure_installed
from evals.reliability.load import (
    CALL_TIMEOUT_S,
    FAILURES,
    Ledger,
    Outcome,
    campaign_text,
    retried,
    timed_call,
)
from evals.reliability.scenarios import FULL, SMOKE

NOT_APPLICABLE = {
    "nats_down": "the peer has no event bus: its writes go straight to its Postgres",
    "embedder_down": "the peer embeds in the daemon's own process: there is no separate "
                     "embedder to lose (killing the daemon covers it)",
    "postgres_restart": "covered by the kill of the peer's Postgres (its daemon does not "
                        "supervise or restart it)",
    "mail_read_back": "the peer's board refuses a plain MCP HTTP client "
                      "(instance_authentication_required: its stdio shim authenticates each "
                      "session instance), so the load sends no peer mail",
    "fuzz_mcp, fuzz_rest, isolation": "outside the comparison the campaign makes "
                                      "(the kill and load scenarios)",
}


def classify(result: Any) -> tuple[Outcome, str]:
    """The peer's tool errors carry a code: `internal_error` is its server failing."""
    if not result.is_error:
        return Outcome.OK, ""
    sc = result.structured_content or {}
    text = json.dumps(sc) if sc else " ".join(getattr(c, "text", "") for c in result.content)
    if sc.get("error") == "internal_error" or "Traceback" in text:
        return Outcome.UNTYPED, text
    if sc.get("retryable") or "retry shortly" in text.lower():
        return Outcome.RETRYABLE, text
    return Outcome.TYPED, text


class PeerAgent:
    """One MCP client of the peer: stores, searches, supersedes, sets facts."""

    def __init__(self, name: str, token: str, url: str, ledger: Ledger, seed: int) -> None:
        self.name, self.token, self.url, self.ledger = name, token, url, ledger
        self.rng, self.seq, self.mine = random.Random(seed), 0, []
        self.client: Client | None = None
        self.stored: dict[str, str] = {}  # acknowledged text -> token (shared)
        self.facts: dict[tuple[str, str], str] = {}

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[Outcome, Any]:
        assert self.client is not None
        outcome, result = await timed_call(self.client, self.ledger, tool, args, classify)
        if outcome == Outcome.TRANSPORT:  # the session is gone: the loop opens another
            raise ConnectionError(f"{tool}: the MCP session was lost")
        return outcome, result.structured_content if result is not None else None

    async def write(self, tool: str, args: dict[str, Any]) -> tuple[Outcome, Any]:
        """Retried like engram's careful client: on a retryable or a hang."""
        # A lost session raises instead (the loop opens another), so only these repeat.
        return await retried(lambda: self.call(tool, args), (Outcome.RETRYABLE, Outcome.HANG))

    def text(self) -> str:
        self.seq += 1
        return campaign_text(self.name, self.seq, self.rng)

    def acknowledge(self, text: str, reply: Any) -> None:
        if isinstance(reply, dict) and reply.get("stored", True):
            self.stored[text] = self.token
            self.ledger.stored[text] = (self.token, text)
            self.mine.append(text)
        else:
            self.ledger.samples.setdefault("store:not_stored", json.dumps(reply)[:300])

    async def store(self) -> None:
        text = self.text()
        outcome, reply = await self.write("memory_store", {"text": text})
        if outcome == Outcome.OK:
            self.acknowledge(text, reply)

    async def supersede(self) -> None:
        if not self.mine:
            return await self.store()
        old, text = self.mine.pop(self.rng.randrange(len(self.mine))), self.text()
        outcome, reply = await self.write("memory_supersede", {"old_text": old,
                                                               "new_text": text})
        if outcome == Outcome.OK and reply.get("new_memory_stored"):
            self.stored[text] = self.token
            self.ledger.stored[text] = (self.token, text)
            self.mine.append(text)

    async def search(self) -> None:
        query = f"which port does the {self.rng.choice(['deploy', 'billing', 'queue'])} use"
        await self.call("memory_search", {"query": query})

    async def fact(self) -> None:
        entity, attr = f"svc-{self.name}", f"port-{self.rng.randint(0, 5)}"
        value = str(self.rng.randint(1000, 9999))
        outcome, _ = await self.write("memory_fact_set", {"entity": entity, "attribute": attr,
                                                          "value": value})
        if outcome == Outcome.OK:
            self.facts[(entity, attr)] = value

    async def run(self, stop: asyncio.Event, pace_s: float) -> None:
        ops = [(self.store, 5), (self.search, 5), (self.supersede, 2), (self.fact, 2)]
        while not stop.is_set():
            try:
                async with AsyncExitStack() as es:
                    http = await es.enter_async_context(httpx2.AsyncClient(
                        headers={"Authorization": f"Bearer {self.token}"}, timeout=CALL_TIMEOUT_S))
                    self.client = await es.enter_async_context(
                        Client(streamable_http_client(self.url + "/mcp", http_client=http)))
                    while not stop.is_set():
                        await self.rng.choices([o for o, _ in ops], [w for _, w in ops])[0]()
                        if pace_s:
                            await asyncio.sleep(pace_s * self.rng.random())
            except Exception as exc:  # noqa: BLE001 (the session failed: open another)
                self.ledger.record("session", Outcome.TRANSPORT, 0.0, repr(exc))
                await asyncio.sleep(1.0)


async def _load(peer: PeerDaemon, agents: list[PeerAgent], pace_s: float,
                body: Any) -> None:
    stop = asyncio.Event()
    tasks = [asyncio.create_task(a.run(stop, pace_s)) for a in agents]
    try:
        await body()
    finally:
        stop.set()
        _, pending = await asyncio.wait(tasks, timeout=60)
        for task in pending:
            task.cancel()


def agents_for(peer: PeerDaemon, n: int, ledger: Ledger) -> list[PeerAgent]:
    return [PeerAgent(f"p{i}", peer.tokens[i % len(peer.tokens)], peer.url, ledger, i)
            for i in range(n)]


async def read_back(peer: PeerDaemon, agents: list[PeerAgent]) -> dict[str, Any]:
    """Every acknowledged store by its text in the peer's own table; every
    acknowledged fact by memory_fact_get (the last value an agent set)."""
    acked = {t for a in agents for t in a.stored}
    conn = await asyncpg.connect(peer.dsn)
    try:
        rows = await conn.fetch("SELECT text, count(*) AS n FROM entries WHERE text LIKE "
                                "'campaign note %' GROUP BY text")
        dup_facts = await conn.fetchval(
            "SELECT count(*) FROM (SELECT 1 FROM facts WHERE status = 'current' "
            "GROUP BY entity, attribute, value HAVING count(*) > 1) d")
    finally:
        await conn.close()
    found = {r["text"]: r["n"] for r in rows}
    lost = sorted(acked - set(found))
    facts_wrong = await _facts_read_back(peer, agents)
    return {"acknowledged_stores": len(acked), "lost_stores": len(lost),
            "lost_examples": lost[:5],
            "duplicate_entries": sum(1 for t in acked if found.get(t, 0) > 1),
            "acknowledged_facts": sum(len(a.facts) for a in agents),
            "facts_not_as_acknowledged": facts_wrong, "duplicate_live_facts": dup_facts}


async def _facts_read_back(peer: PeerDaemon, agents: list[PeerAgent]) -> int:
    wrong = 0
    async with AsyncExitStack() as es:
        http = await es.enter_async_context(httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {peer.tokens[0]}"}, timeout=60))
        c = await es.enter_async_context(
            Client(streamable_http_client(peer.url + "/mcp", http_client=http)))
        for agent in agents:
            for (entity, attr), value in agent.facts.items():
                r = await c.call_tool("memory_fact_get", {"entity": entity, "attribute": attr})
                got = json.dumps(r.structured_content or {})
                wrong += r.is_error or f'"value": "{value}"' not in got
    return wrong


async def kill(peer: PeerDaemon, sizes: Any) -> dict[str, Any]:
    """SIGKILL the daemon, then its Postgres, under load. Whatever does not
    come back by itself within the wait, the harness restarts (the daemon;
    it starts its Postgres again), as the peer's shim or Docker would."""
    ledger, recoveries = Ledger(), []
    agents = agents_for(peer, sizes.agents, ledger)

    async def body() -> None:
        await asyncio.sleep(sizes.phase_s / 2)
        for target in ("daemon", "postgres"):
            started = time.monotonic()
            pid = await asyncio.to_thread(peer.kill, target)
            by = "itself" if await asyncio.to_thread(peer.wait_healthy, 30) else "harness"
            if by == "harness":  # a new daemon; it attaches to or starts its Postgres
                await asyncio.to_thread(peer.stop_daemon)
                await asyncio.to_thread(peer.start)
            seconds = round(time.monotonic() - started, 1)
            recoveries.append({"target": target, "killed_pid": pid, "recovered_by": by,
                               "seconds": seconds,
                               "calls_during": dict(ledger.window(started, time.monotonic()))})
            await asyncio.sleep(sizes.phase_s / 2)

    await _load(peer, agents, 0.2, body)
    checks = await read_back(peer, agents)
    return {"recoveries": recoveries, "read_back": checks,
            "recovered_by_itself": all(r["recovered_by"] == "itself" for r in recoveries),
            "no_loss_no_duplicates": (checks["lost_stores"] == 0
                                      and checks["duplicate_entries"] == 0
                                      and checks["duplicate_live_facts"] == 0),
            "load": ledger.summary()}


async def concurrency(peer: PeerDaemon, sizes: Any) -> dict[str, Any]:
    ledger = Ledger()
    agents = agents_for(peer, sizes.concurrent_agents, ledger)
    await _load(peer, agents, 0.0, lambda: asyncio.sleep(sizes.concurrent_s))
    summary = ledger.summary()
    errors = sum(summary["outcomes"].get(o, 0) for o in (*FAILURES, Outcome.RETRYABLE))
    return {"agents": sizes.concurrent_agents, "seconds": sizes.concurrent_s, "errors": errors,
            "error_rate": round(errors / max(summary["calls"], 1), 4),
            "latency": ledger.latency_table(), "load": summary}


def run_peer(sizes: Any, port: int) -> dict[str, Any]:
    """Install, start, run the applicable scenarios; the failure, if any, as it was."""
    out: dict[str, Any] = {"name": PACKAGE, "not_applicable": NOT_APPLICABLE}
    home = Path(tempfile.mkdtemp(prefix="engram-peer-"))
    home.chmod(0o755)
    peer: PeerDaemon | None = None
    try:
        started = time.monotonic()
        venv, model = ensure_installed()
        out["install_s"] = round(time.monotonic() - started, 1)
        peer = PeerDaemon(venv, model, home / "peer", port)
        peer.prepare(principals=3)
        out["cold_start_s"] = round(peer.start(), 1)
        for name, fn in (("kill", kill), ("concurrency", concurrency)):
            t0 = time.monotonic()
            try:
                out[name] = asyncio.run(fn(peer, sizes))
            except Exception as exc:  # noqa: BLE001 (recorded as it was)
                out[name] = {"harness_error": repr(exc)[:500], "log_tail": peer.log_tail()}
            out[name]["seconds_total"] = round(time.monotonic() - t0, 1)
            if not peer.wait_healthy(5):
                peer.stop()
                peer.start()
        out["status"] = "ran"
    except (PeerUnavailable, OSError, TimeoutError) as exc:
        out["status"] = "failed"
        out["error"] = str(exc)[:2000]
    finally:
        if peer is not None:
            peer.stop()
        shutil.rmtree(home, ignore_errors=True)
    return out


TOOLS = {"memory_store": "memory_store", "memory_search": "memory_search",
         "memory_supersede": "memory_supersede", "fact_set": "memory_fact_set"}


def compare(engram: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    """engram beside the peer where the two measured the same thing; latency
    ratios are peer / engram (above 1: the peer is slower)."""
    out: dict[str, Any] = {}
    ek, pk = engram.get("kill_each") or {}, peer.get("kill") or {}
    if ek.get("read_back") and pk.get("read_back"):
        e_rb, p_rb = ek["read_back"], pk["read_back"]
        e_rec = {r["target"]: r for r in ek.get("recoveries", [])}
        p_rec = {r["target"]: r for r in pk.get("recoveries", [])}
        out["kill"] = {
            "lost_stores": {"engram": e_rb["lost_stores"], "peer": p_rb["lost_stores"]},
            "duplicate_entries": {"engram": e_rb["duplicate_entries"],
                                  "peer": p_rb["duplicate_entries"]},
            "acknowledged_stores": {"engram": e_rb["acknowledged_stores"],
                                    "peer": p_rb["acknowledged_stores"]},
            "recovered_by_itself": {"engram": ek.get("recovered_by_itself"),
                                    "peer": pk.get("recovered_by_itself")},
            # the process an MCP client talks to, and the database under it
            "front_process_back_after_s": {
                "engram": (e_rec.get("gateway") or {}).get("recovery_s"),
                "peer": (p_rec.get("daemon") or {}).get("seconds")},
            "postgres_back_after_s": {
                "engram": (e_rec.get("postgres") or {}).get("recovery_s"),
                "peer": (p_rec.get("postgres") or {}).get("seconds")}}
    ec, pc = engram.get("concurrency") or {}, peer.get("concurrency") or {}
    if ec.get("latency") and pc.get("latency"):
        e_calls = max(ec.get("load", {}).get("calls", 0), 1)
        lat = {}
        for etool, ptool in TOOLS.items():
            e, p = ec["latency"].get(etool), pc["latency"].get(ptool)
            if e and p:
                lat[etool] = {q: {"engram": e[q], "peer": p[q],
                                  "ratio": round(p[q] / e[q], 2) if e[q] else None}
                              for q in ("p50_ms", "p95_ms", "p99_ms")}
        out["concurrency"] = {
            "agents": {"engram": ec.get("agents"), "peer": pc.get("agents")},
            "error_rate": {"engram": round(ec.get("errors", 0) / e_calls, 4),
                           "peer": pc.get("error_rate")},
            "latency": lat,
            "note": "same agent count and no pacing; engram's mix also has REST clients, "
                    "forget, board leases and mail, the peer's MCP store, search, supersede "
                    "and fact_set only"}
    return out


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--port", type=int, default=18765)
    args = parser.parse_args()
    sys.stdout.write(json.dumps(run_peer(SMOKE if args.smoke else FULL, args.port), indent=2,
                                default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
