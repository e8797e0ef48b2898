"""The scenarios of the reliability campaign. Each runs under the mixed load
of reliability_load, injects its fault into a real `engram up`
(reliability_faults), and returns what it measured plus `holds`: whether
every "must hold" of the scenario held. A failing scenario is reported as
failing, with its evidence, never hidden."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx2
import psutil

from evals.reliability.faults import SERVICES, EngramUp
from evals.reliability.load import FAILURES, Agent, Ledger, Outcome, make_agents

NAMESPACE = "campaign"


@dataclass
class Sizes:
    agents: int = 6
    phase_s: float = 16.0
    outage_s: float = 60.0
    concurrent_agents: int = 50
    concurrent_s: float = 60.0
    fuzz_examples: int = 400
    principals: int = 4


# --smoke: every phase at a size that finishes in minutes.
SMOKE = Sizes(agents=3, phase_s=4.0, outage_s=6.0, concurrent_agents=5, concurrent_s=8.0,
              fuzz_examples=30, principals=2)
FULL = Sizes()


def tokens(up: EngramUp, n: int, tag: str) -> list[str]:
    return [up.s.principals.create(f"{tag}-{i}", "agent", [NAMESPACE]) for i in range(n)]


@asynccontextmanager
async def load(up: EngramUp, ledger: Ledger, n: int, toks: list[str],
               pace_s: float = 0.2) -> AsyncIterator[list[Agent]]:
    stop, peers = asyncio.Event(), {}
    agents = make_agents(toks, up.s.mcp_url, up.rest_url, n, ledger)
    tasks = [asyncio.create_task(a.run(stop, pace_s, peers)) for a in agents]
    try:
        yield agents
    finally:
        stop.set()
        _, pending = await asyncio.wait(tasks, timeout=60)
        for task in pending:
            task.cancel()


async def admin(up: EngramUp, sql: str, *args: Any) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(up.s.postgres.admin_dsn)
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()


async def read_back(up: EngramUp, ledger: Ledger) -> dict[str, Any]:
    """Every acknowledged write read back by id; duplicates counted in SQL."""
    lost: list[str] = []
    sem = asyncio.Semaphore(8)
    async with httpx2.AsyncClient(timeout=30) as http:
        async def one(entry_id: str, token: str) -> None:
            async with sem:
                for _ in range(3):
                    resp = await http.get(f"{up.rest_url}/v1/memories/{entry_id}",
                                          headers={"Authorization": f"Bearer {token}"})
                    if resp.status_code != 503:
                        break
                    await asyncio.sleep(1)
                if resp.status_code != 200:
                    lost.append(f"{entry_id}: {resp.status_code}")
        await asyncio.gather(*[one(i, tok) for i, (tok, _) in ledger.stored.items()
                               if i not in ledger.forgotten])
    dup_entries = await admin(up, "SELECT text, count(*) AS n FROM memory.entries WHERE "
                              "text LIKE 'campaign note %' GROUP BY text HAVING count(*) > 1")
    bodies = await admin(up, "SELECT body, count(*) AS n FROM coordination.messages WHERE "
                         "body LIKE 'mail %' GROUP BY body")
    found = {r["body"]: r["n"] for r in bodies}
    redelivered = await admin(up, "SELECT coalesce(sum(redeliveries), 0) AS n, count(*) AS c "
                              "FROM dreamer.processed_events")
    audit = await audit_effects(up, [i for i in ledger.stored])
    return {"acknowledged_stores": len(ledger.stored), "lost_stores": len(lost),
            "lost_examples": lost[:5], "duplicate_entries": len(dup_entries),
            "duplicate_examples": [r["text"] for r in dup_entries[:3]],
            "acknowledged_mail": len(ledger.mail),
            "lost_mail": len(ledger.mail - set(found)),
            "duplicate_mail": sum(1 for n in found.values() if n > 1),
            "dreamer_events": redelivered[0]["c"],
            "dreamer_redeliveries_absorbed": redelivered[0]["n"], **audit}


# One audit row per effect: a retried call or a redelivered event that wrote
# its effect twice shows here as a second row for the same subject.
AUDIT_DUPLICATES = {
    "entry.store": "SELECT count(*) FROM (SELECT 1 FROM memory.audit WHERE action = "
                   "'entry.store' GROUP BY namespace, subject HAVING count(*) > 1) d",
    "message.send": "SELECT count(*) FROM (SELECT 1 FROM coordination.audit WHERE action = "
                    "'message.send' GROUP BY namespace, subject HAVING count(*) > 1) d",
    "message.send per request_id": (
        "SELECT count(*) FROM (SELECT 1 FROM coordination.audit WHERE action = "
        "'message.send' GROUP BY namespace, detail->>'request_id', detail->>'recipient' "
        "HAVING count(*) > 1) d"),
    "fact.* per fact": "SELECT count(*) FROM (SELECT 1 FROM cortex.audit WHERE action IN "
                       "('fact.insert', 'fact.supersede', 'fact.contest', 'fact.park') "
                       "GROUP BY namespace, subject "
                       "HAVING count(*) > 1) d",
}


async def audit_effects(up: EngramUp, stored_ids: list[str]) -> dict[str, Any]:
    """Audit rows per effect (each must be 1), acknowledged stores without
    their audit row, and live facts held twice (a dreamer fact applied twice)."""
    dups = {k: (await admin(up, sql))[0]["count"] for k, sql in AUDIT_DUPLICATES.items()}
    audited = await admin(up, "SELECT count(DISTINCT subject) AS n FROM memory.audit WHERE "
                          "action IN ('entry.store', 'entry.confirm') AND subject = ANY($1)",
                          stored_ids)
    # Served facts only: a value the agents set again after it was retired is
    # parked each time (the tombstone lane), by design, not by a retry.
    facts = await admin(up, "SELECT entity, attribute, norm_value, "
                        "array_agg(verdict ORDER BY recorded_at) AS verdicts, "
                        "array_agg(origin ORDER BY recorded_at) AS origins "
                        "FROM cortex.live_facts WHERE verdict IN ('active', 'contested') "
                        "GROUP BY namespace, entity, attribute, norm_value "
                        "HAVING count(*) > 1")
    parked = await admin(up, "SELECT count(*) AS n FROM (SELECT 1 FROM cortex.live_facts "
                         "WHERE verdict = 'parked' GROUP BY namespace, entity, attribute, "
                         "norm_value HAVING count(*) > 1) d")
    return {"duplicate_audit_rows": dups,
            "stores_without_audit_row": len(set(stored_ids)) - audited[0]["n"],
            "duplicate_live_facts": len(facts),
            "duplicate_fact_examples": [dict(r) for r in facts[:5]],
            "values_parked_again": parked[0]["n"]}


def no_duplicate_effects(checks: dict[str, Any]) -> bool:
    return (checks["duplicate_entries"] == 0 and checks["duplicate_mail"] == 0
            and not any(checks["duplicate_audit_rows"].values())
            and checks["stores_without_audit_row"] == 0 and checks["duplicate_live_facts"] == 0)


async def kill_each(up: EngramUp, sizes: Sizes, targets: list[str]) -> dict[str, Any]:
    """SIGKILL each process in turn during the load; recovery with no person."""
    ledger, recoveries = Ledger(), []
    async with load(up, ledger, sizes.agents, tokens(up, 3, "kill")):
        await asyncio.sleep(sizes.phase_s / 2)
        for target in targets:
            started = time.monotonic()
            pid = up.kill(target)
            rec = await asyncio.to_thread(up.recover, target, pid, started)
            window = ledger.window(started, time.monotonic())
            recoveries.append({**rec.as_dict(), "killed_pid": pid,
                               "calls_during": dict(window)})
            await asyncio.sleep(sizes.phase_s / 2)
    checks = await read_back(up, ledger)
    by_self = all(r["recovered_by"] == "itself" for r in recoveries)
    holds = (checks["lost_stores"] == 0 and checks["lost_mail"] == 0
             and no_duplicate_effects(checks) and by_self)
    return {"holds": holds, "recovered_by_itself": by_self, "recoveries": recoveries,
            "read_back": checks, "load": ledger.summary()}


async def outage(up: EngramUp, sizes: Sizes, target: str) -> dict[str, Any]:
    """Stop NATS or the embedder for outage_s under load, then bring it back."""
    ledger = Ledger()
    async with load(up, ledger, sizes.agents, tokens(up, 2, f"out-{target}")):
        await asyncio.sleep(sizes.phase_s / 2)
        started = time.monotonic()
        if target == "nats":
            up.kill("nats")
            await asyncio.sleep(sizes.outage_s)
            if not up.infra_up("nats"):
                await asyncio.to_thread(up.harness_start, "nats")
                restarted_by = "harness"
            else:
                restarted_by = "itself"
        else:
            # SIGSTOP: down to its callers, yet `engram up` does not restart it
            pid = up.service_pid(target)
            assert pid is not None
            os.kill(pid, signal.SIGSTOP)
            await asyncio.sleep(sizes.outage_s)
            os.kill(pid, signal.SIGCONT)
            restarted_by = "n/a (paused, then resumed)"
        during = ledger.window(started, time.monotonic())
        stores_ok = sum(n for (tool, o), n in ledger.outcomes.items()
                        if o == Outcome.OK and tool in ("memory_store", "rest_store"))
        await asyncio.sleep(sizes.phase_s / 2)
    drained_s = await wait_drained(up, target, timeout_s=120)
    checks = await read_back(up, ledger)
    write_fail = sum(during[o] for o in FAILURES)
    holds = (drained_s is not None and checks["lost_stores"] == 0
             and no_duplicate_effects(checks) and write_fail == 0)
    if target == "embedder":
        holds = holds and ledger.search_modes.get("lexical", 0) > 0
    return {"holds": holds, "outage_s": sizes.outage_s, "restarted_by": restarted_by,
            "calls_during_outage": dict(during), "stores_acknowledged": stores_ok,
            "drained_after_s": drained_s, "read_back": checks, "load": ledger.summary()}


async def wait_drained(up: EngramUp, target: str, timeout_s: float) -> float | None:
    """NATS: the outbox publishes its backlog. Embedder: every vector filled."""
    sql = ("SELECT count(*) AS n FROM memory.outbox WHERE published_at IS NULL"
           if target == "nats" else
           "SELECT (SELECT count(*) FROM memory.embedding_queue) + (SELECT count(*) FROM "
           "memory.entries WHERE embedding IS NULL AND status = 'live') AS n")
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        try:
            if (await admin(up, sql))[0]["n"] == 0:
                return round(time.monotonic() - started, 1)
        except (OSError, asyncpg.PostgresError):
            pass
        await asyncio.sleep(1)
    return None


async def postgres_restart(up: EngramUp, sizes: Sizes) -> dict[str, Any]:
    """A clean Postgres shutdown under load, brought back by `engram up` (it
    supervises Postgres; the harness starting its own would collide on the
    port): typed retryable errors while it is down, no 500, no hang; the pools
    recover by themselves."""
    ledger = Ledger()
    async with load(up, ledger, sizes.agents, tokens(up, 2, "pgr")):
        await asyncio.sleep(sizes.phase_s / 2)
        started = time.monotonic()
        pid = up.postgres_pid()
        if pid is not None:
            os.kill(pid, signal.SIGINT)  # Postgres' "fast" shutdown: clean, like pg_ctl stop
        rec = await asyncio.to_thread(up.recover, "postgres", pid, started)
        ready_s = round(rec.seconds, 1)
        await asyncio.sleep(sizes.phase_s / 2)
        after = ledger.window(time.monotonic() - sizes.phase_s / 4, time.monotonic())
    during = ledger.window(started, started + ready_s)
    holds = (pid is not None and rec.by == "itself" and up.all_ready()
             and sum(during[o] for o in FAILURES) == 0
             and sum(after[o] for o in (*FAILURES, Outcome.RETRYABLE)) == 0)
    return {"holds": holds, **rec.as_dict(), "stopped_pid": pid,
            "ready_again_after_s": ready_s,
            "calls_during": dict(during), "calls_after_recovery": dict(after),
            "load": ledger.summary()}


async def concurrency(up: EngramUp, sizes: Sizes) -> dict[str, Any]:
    """Many MCP agents at once, no pacing: error rate, latency per tool, and
    whether memory or queues grow without bound."""
    ledger = Ledger()

    def rss() -> dict[str, int]:
        out = {}
        for name in SERVICES:
            pid = up.service_pid(name)
            if pid:
                out[name] = psutil.Process(pid).memory_info().rss // 2**20
        return out

    queue_sql = ("SELECT (SELECT count(*) FROM memory.outbox WHERE published_at IS NULL) AS o, "
                 "(SELECT count(*) FROM memory.embedding_queue) AS e")
    rss_before = rss()
    async with load(up, ledger, sizes.concurrent_agents,
                    tokens(up, min(10, sizes.concurrent_agents), "conc"), pace_s=0.0):
        await asyncio.sleep(sizes.concurrent_s / 2)
        mid = dict((await admin(up, queue_sql))[0])
        rss_mid = rss()
        await asyncio.sleep(sizes.concurrent_s / 2)
        end = dict((await admin(up, queue_sql))[0])
        rss_end = rss()
    summary = ledger.summary()
    errors = sum(summary["outcomes"].get(o, 0) for o in (*FAILURES, Outcome.RETRYABLE))
    growth = {n: rss_end[n] - rss_mid[n] for n in rss_end if n in rss_mid}
    # Bounded: once the load stops, the queues empty by themselves.
    outbox_drained = await wait_drained(up, "nats", timeout_s=120)
    vectors_drained = await wait_drained(up, "embedder", timeout_s=300)
    holds = errors == 0 and outbox_drained is not None and vectors_drained is not None
    return {"holds": holds, "agents": sizes.concurrent_agents,
            "queues_drained_after_load_s": {"outbox": outbox_drained,
                                            "vectors": vectors_drained},
            "seconds": sizes.concurrent_s, "errors": errors,
            "latency": ledger.latency_table(), "rss_mb": {"before": rss_before, "mid": rss_mid,
                                                          "end": rss_end,
                                                          "growth_second_half": growth},
            "queues": {"mid": mid, "end": end}, "load": summary}
