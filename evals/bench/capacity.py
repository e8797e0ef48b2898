"""Capacity: the highest store and search throughput at which p95 stays
under a target (100 ms), through the official MCP client against a real
`engram up` stack, and what each operation costs in CPU, per process.

Open-loop load: requests arrive as a Poisson process at an offered rate
(seeded), spread over `--clients` MCP sessions of one principal, and each
call's latency is measured from the moment it was due, not from when it was
sent, so a client that falls behind shows as latency (no coordinated
omission). The rate steps up (`--store-rates`, `--search-rates`) until
`--misses` steps in a row fail, once `--min-steps` have run: p95 over the
target, any error, or a call dropped because `--max-in-flight` were pending.
Per step: latency, CPU seconds per operation of every process tree of the
stack (from /proc), the load generator's own CPU, and the whole machine's
busy cores (other work on a shared machine shows there). Around the store
steps the event stream's messages and bytes are read (JetStream stream info,
as the NATS admin), so events per write and bytes per event come from the
same run.

`--replicas SPEC` measures a second stack with that many replicas per
service after the first (one of each), in the same run; both get the same
load and the same correctness checks (every returned id is stored once, the
event count matches the writes).

Writes evals/results/capacity-<timestamp>.json. Run: make bench-capacity
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np
from mcp import Client

from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.bench.mcp_latency import memories, queries
from evals.harness.benchlib import (
    agent_token,
    command_line,
    git_state,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
    tool_text,
)
from evals.harness.capacity_probe import (
    cpu_snapshot,
    delta,
    growth_per_write,
    machine_cpu,
    memory_mib,
    self_cpu_s,
    stream_delta,
    stream_state,
    table_bytes,
)
from tests.helpers import mcp_client

RESULTS = results_dir()
ENTRY_STORED = "engram.events.memory.entry_stored"
ENTRY_TABLES = ("memory.entries", "memory.entry_lexemes", "memory.lexemes")


def pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values) * 1000, q)), 2) if values else 0.0


class Load:
    """One operation's calls: the tool, its arguments per call number, and
    what the replies said (ids stored, findings, search modes)."""

    def __init__(self, tool: str, texts: list[tuple[str, list[str]]], asks: list[str]) -> None:
        self.tool, self.texts, self.asks, self.next = tool, texts, asks, 0
        self.ids: list[str] = []
        self.seen: Counter[str] = Counter()
        self.unembedded = 0

    def args(self) -> dict[str, Any]:
        i, self.next = self.next, self.next + 1
        if self.tool == "memory_store":
            text, tags = self.texts[i % len(self.texts)]
            return {"text": text, "tags": tags, "source": "capacity"}
        return {"query": f"{self.asks[i % len(self.asks)]} (c{i})", "top_k": 5}

    def record(self, reply: dict[str, Any]) -> None:
        if self.tool == "memory_store":
            self.ids.append(reply["id"])
            self.seen[reply["finding"]] += 1
            self.unembedded += not reply["embedded"]
        else:
            self.seen[reply["mode"]] += 1


async def idle(stack: Stack, seconds: float) -> dict[str, float]:
    """Cores each process uses with no calls (sweeps, polls, the dreamer's
    passes): taken out of the CPU per operation as the stack's idle floor."""
    before = cpu_snapshot(stack)
    await asyncio.sleep(seconds)
    return {k: round(v / seconds, 4) for k, v in delta(cpu_snapshot(stack), before).items()}


async def step(stack: Stack, pool: list[Client], load: Load, rate: float,
               args: argparse.Namespace, rng: random.Random) -> dict[str, Any]:
    """Offer `rate` calls per second for `args.step_s` seconds; measure."""
    n = max(2, round(rate * args.step_s))
    due, at = [], 0.0
    for _ in range(n):
        due.append(at)
        at += rng.expovariate(rate)
    loop = asyncio.get_running_loop()
    latency: list[float] = []
    service: list[float] = []
    errors: Counter[str] = Counter()
    pending = {"now": 0, "dropped": 0}

    async def one(client: Client, call_args: dict[str, Any], due_at: float) -> None:
        sent = loop.time()
        try:
            result = await client.call_tool(load.tool, call_args)
            if result.is_error:
                errors[tool_text(result)[:120]] += 1
            else:
                load.record(result.structured_content or json.loads(tool_text(result)))
        except Exception as exc:  # counted, not raised: the step fails on any error
            errors[type(exc).__name__] += 1
        done = loop.time()
        latency.append(done - due_at)
        service.append(done - sent)
        pending["now"] -= 1

    cpu0, self0, (busy0, _) = cpu_snapshot(stack), self_cpu_s(), machine_cpu()
    start, tasks = loop.time() + 0.05, []
    for i, offset in enumerate(due):
        if (wait := start + offset - loop.time()) > 0:
            await asyncio.sleep(wait)
        if pending["now"] >= args.max_in_flight:
            pending["dropped"] += 1
            continue
        pending["now"] += 1
        tasks.append(asyncio.create_task(one(pool[i % len(pool)], load.args(), start + offset)))
    await asyncio.gather(*tasks)
    # Arrivals are random: a step whose calls all came early still spans its length.
    wall = max(loop.time() - start, args.step_s)
    cpu, gen = delta(cpu_snapshot(stack), cpu0), self_cpu_s() - self0
    busy = machine_cpu()[0] - busy0
    ok = len(latency) - sum(errors.values())
    per_op = {k: round(v * 1000 / max(ok, 1), 2) for k, v in sorted(cpu.items())}
    floor = args.idle_cores
    marginal = {k: round(max(v - floor.get(k, 0.0) * wall, 0.0) * 1000 / max(ok, 1), 2)
                for k, v in sorted(cpu.items())}
    result = {
        "offered_per_s": rate, "calls": n, "ok": ok, "errors": dict(errors),
        "dropped": pending["dropped"], "achieved_per_s": round(ok / wall, 2),
        "latency_ms": {"p50": pct(latency, 50), "p95": pct(latency, 95), "p99": pct(latency, 99),
                       "max": pct(latency, 100)},
        "service_time_ms": {"p50": pct(service, 50), "p95": pct(service, 95)},
        "cpu_ms_per_op": per_op,
        "cpu_ms_per_op_stack": round(sum(per_op.values()), 2),
        "marginal_cpu_ms_per_op": marginal,
        "marginal_cpu_ms_per_op_stack": round(sum(marginal.values()), 2),
        "cpu_ms_per_op_load_generator": round(gen * 1000 / max(ok, 1), 2),
        "cores_busy": {"stack": round(sum(cpu.values()) / wall, 2),
                       "load_generator": round(gen / wall, 2),
                       "machine": round(busy / wall, 2),
                       "other_work": round(max(busy - sum(cpu.values()) - gen, 0) / wall, 2)},
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }
    result["passes"] = bool(result["latency_ms"]["p95"] < args.p95_target_ms and not errors
                            and not pending["dropped"])
    return result


async def ramp(stack: Stack, pool: list[Client], load: Load, rates: list[float],
               args: argparse.Namespace, rng: random.Random) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    misses = 0
    for rate in rates:
        point = await step(stack, pool, load, rate, args, rng)
        steps.append(point)
        lat = point["latency_ms"]
        verdict = "ok" if point["passes"] else "FAIL"
        sys.stdout.write(f"  {load.tool} offered {rate:>5}/s achieved "
                         f"{point['achieved_per_s']:>6}/s p50 {lat['p50']:.0f} p95 "
                         f"{lat['p95']:.0f} ms, stack {point['cpu_ms_per_op_stack']:.0f} CPU "
                         f"ms/op, errors {sum(point['errors'].values())}, {verdict}\n")
        sys.stdout.flush()
        misses = 0 if point["passes"] else misses + 1
        if misses >= args.misses and len(steps) >= args.min_steps:
            break
    passing = [p for p in steps if p["passes"]]
    best = max(passing, key=lambda p: p["achieved_per_s"]) if passing else None
    return {"steps": steps, "capacity": capacity(best, steps)}


def capacity(best: dict[str, Any] | None, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The best passing step, and the CPU an operation costs over the idle
    floor, per process: taken from the busiest step that completed every
    call without error (the most operations to average over)."""
    clean = [p for p in steps if not p["errors"] and not p["dropped"]] or steps
    costed = max(clean, key=lambda p: p["ok"])
    cost = {"cpu_from_step_offered_per_s": costed["offered_per_s"],
            "marginal_cpu_ms_per_op": costed["marginal_cpu_ms_per_op"],
            "marginal_cpu_ms_per_op_stack": costed["marginal_cpu_ms_per_op_stack"],
            "ops_per_stack_core_s": round(1000 / costed["marginal_cpu_ms_per_op_stack"], 1)
                                    if costed["marginal_cpu_ms_per_op_stack"] else None}
    if best is None:
        return {"per_s": None, "note": "no step met the target", **cost}
    return {"per_s": best["achieved_per_s"], "offered_per_s": best["offered_per_s"],
            "p95_ms": best["latency_ms"]["p95"],
            "per_machine_core": round(best["achieved_per_s"] / (os.cpu_count() or 1), 2),
            "cores_busy_at_capacity": best["cores_busy"],
            "limited_by": "the machine: the stack, the load generator and other work share "
                          "its cores" if best is not steps[-1] else "the highest rate asked",
            **cost}


async def unpublished(stack: Stack) -> int:
    """Outbox rows the relays have not published yet (memory and cortex)."""
    conn = await asyncpg.connect(stack.postgres.admin_dsn)
    try:
        return await conn.fetchval(
            "SELECT (SELECT count(*) FROM memory.outbox WHERE published_at IS NULL)"
            " + (SELECT count(*) FROM cortex.outbox WHERE published_at IS NULL)")
    finally:
        await conn.close()


async def settle(stack: Stack, timeout_s: float = 60.0) -> float:
    """Seconds until every outbox row is published and every event consumer
    (the dreamer's intake) has caught up."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        state = await stream_state(stack)
        if not await unpublished(stack) and all(
                c["pending"] == 0 and c["ack_pending"] == 0 for c in state["consumers"].values()):
            break
        await asyncio.sleep(0.5)
    return round(time.monotonic() - started, 1)


async def stored_once(stack: Stack, ids: list[str]) -> dict[str, Any]:
    """Every id a store returned is a row, and no text was stored twice."""
    conn = await asyncpg.connect(stack.postgres.admin_dsn)
    try:
        found = await conn.fetchval("SELECT count(*) FROM memory.entries WHERE id::text ="
                                    " ANY($1::text[])", list(set(ids)))
        twice = await conn.fetchval("SELECT count(*) FROM (SELECT text_hash FROM memory.entries"
                                    " WHERE source = 'capacity' GROUP BY namespace, text_hash"
                                    " HAVING count(*) > 1) d")
    finally:
        await conn.close()
    return {"ids_returned": len(ids), "distinct_ids": len(set(ids)), "ids_found": found,
            "texts_stored_twice": twice, "holds": found == len(set(ids)) and twice == 0}


async def measure(stack: Stack, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    total = int(sum(args.store_rates) * args.step_s * 1.3) + args.warmup + 50
    store = Load("memory_store", memories(total, seed=args.seed), [])
    search = Load("memory_search", [], queries(500, seed=args.seed))
    async with AsyncExitStack() as clients:
        urls = stack.gateway_urls  # clients spread over the gateways, as a balancer would
        pool = [await clients.enter_async_context(
            mcp_client(urls[i % len(urls)], agent_token(stack), session=f"capacity-{i}"))
            for i in range(args.clients)]
        for load in (store, search):  # untimed warm-up: model, caches, connections
            for i in range(args.warmup):
                await pool[i % len(pool)].call_tool(load.tool, load.args())
        store.ids.clear()
        await settle(stack)
        args.idle_cores = await idle(stack, args.step_s)
        before, tables = await stream_state(stack), await table_bytes(stack.postgres.admin_dsn)
        stores = await ramp(stack, pool, store, args.store_rates, args, rng)
        settle_s = await settle(stack)
        after = await stream_state(stack)
        grown = await table_bytes(stack.postgres.admin_dsn)
        searches = await ramp(stack, pool, search, args.search_rates, args, rng)
        await settle(stack)
        after_search = await stream_state(stack)
    writes = sum(p["ok"] for p in stores["steps"])
    events = stream_delta(after, before, writes)
    events["consumers_caught_up_s"] = settle_s
    # Every store but a restatement (the same text again) publishes one entry_stored.
    new = writes - store.seen["restatement"]
    stored_events = events["events_by_subject"].get(ENTRY_STORED, 0)
    return {"store": {**stores, "findings": dict(store.seen),
                      "stored_without_vector": store.unembedded},
            "search": {**searches, "modes": dict(search.seen)},
            "events": events,
            # What the stores caused later too (the dreamer's facts: cortex events), for
            # sizing NATS by writes; searches themselves publish nothing.
            "events_caused": stream_delta(after_search, before, writes),
            "idle_cores_by_process": args.idle_cores,
            "database": growth_per_write(grown, tables, writes, ENTRY_TABLES),
            "correctness": {**await stored_once(stack, store.ids),
                            "entry_stored_events": stored_events, "new_entries": new,
                            "events_match_writes": stored_events == new},
            "memory_mib": memory_mib(stack)}


def open_stack(args: argparse.Namespace, replicas: str, offset: int) -> tuple[Stack, Path]:
    data_dir = Path(tempfile.mkdtemp(prefix="engram-capacity-"))
    return Stack(RunnerSettings(data_dir=data_dir, port_offset=offset, replicas=replicas)), data_dir


def run_config(args: argparse.Namespace, replicas: str, offset: int) -> dict[str, Any]:
    label = replicas or "one of each"
    sys.stdout.write(f"== stack: {label} (port offset {offset})\n")
    sys.stdout.flush()
    stack, data_dir = open_stack(args, replicas, offset)
    try:
        started = time.perf_counter()
        stack.start()
        cold = round(time.perf_counter() - started, 1)
        measured = asyncio.run(measure(stack, args))
        processes = sorted(stack.procs)
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    return {"replicas": label, "processes": processes, "cold_start_s": cold, **measured}


def compare(one: dict[str, Any], two: dict[str, Any]) -> dict[str, Any]:
    """The replicated stack against one of each at the lowest step (the
    overhead of the extra processes), and at each one's capacity."""
    out: dict[str, Any] = {}
    for op in ("store", "search"):
        a, b = one[op]["steps"][0], two[op]["steps"][0]
        out[op] = {"low_load_p50_ms": [a["latency_ms"]["p50"], b["latency_ms"]["p50"]],
                   "low_load_cpu_ms_per_op": [a["cpu_ms_per_op_stack"], b["cpu_ms_per_op_stack"]],
                   "capacity_per_s": [one[op]["capacity"]["per_s"], two[op]["capacity"]["per_s"]]}
    out["memory_mib_total"] = [round(sum(one["memory_mib"].values())),
                               round(sum(two["memory_mib"].values()))]
    out["correctness_holds"] = [one["correctness"]["holds"] and one["correctness"][
        "events_match_writes"], two["correctness"]["holds"] and two["correctness"][
        "events_match_writes"]]
    out["note"] = ("pairs are [one of each, replicated]; on a machine with as many cores as the "
                   "one-of-each stack can use, a second replica adds processes, not cores: "
                   "this shows correctness and overhead, not scaling")
    return out


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--store-rates", type=float, nargs="+",
                        default=[1, 2, 4, 8, 12, 16, 24, 32, 48])
    parser.add_argument("--search-rates", type=float, nargs="+",
                        default=[1, 2, 4, 8, 12, 16, 24, 32, 48])
    parser.add_argument("--step-s", type=float, default=15.0, help="seconds per load step")
    parser.add_argument("--clients", type=int, default=8, help="MCP sessions (agents)")
    parser.add_argument("--max-in-flight", type=int, default=64)
    parser.add_argument("--p95-target-ms", type=float, default=100.0)
    parser.add_argument("--misses", type=int, default=2,
                        help="failed steps in a row that end a ramp")
    parser.add_argument("--min-steps", type=int, default=3,
                        help="steps run whatever their latency (enough calls to cost)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed calls per tool")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--replicas", default="",
                        help="also measure a stack with these replicas, e.g. memory=2,gateway=2")
    parser.add_argument("--port-offset", type=int, default=1000)
    args = parse_with_smoke(parser, {"store_rates": [2, 4], "search_rates": [2, 4],
                                     "step_s": 2.0, "warmup": 2, "clients": 2})
    args.idle_cores = {}  # per process, measured before the first step
    started_at = datetime.now(UTC)
    machine = {"platform": platform.platform(), "cpu_count": os.cpu_count(),
               "python": platform.python_version(),
               "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
                                   / 2**30, 1),
               "loadavg_at_start": [round(x, 2) for x in os.getloadavg()]}
    git = git_state()
    configs = [run_config(args, "", args.port_offset)]
    if args.replicas:
        configs.append(run_config(args, args.replicas, args.port_offset + 50))
    machine["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    result = {
        "timestamp": started_at.isoformat(timespec="seconds"), "machine": machine, "git": git,
        "command": command_line(),
        "load": {"arrivals": "Poisson, seeded", "step_s": args.step_s, "clients": args.clients,
                 "max_in_flight": args.max_in_flight, "p95_target_ms": args.p95_target_ms,
                 "latency_from": "when each call was due (open loop)",
                 "store_text": "distinct realistic memories (bench_mcp_latency.memories)",
                 "search": "top_k=5, each query made unique"},
        "configs": configs,
        "comparison": compare(configs[0], configs[1]) if len(configs) > 1 else None,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"capacity-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    for config in configs:
        ev = config["events"]
        sys.stdout.write(f"{config['replicas']}: store {config['store']['capacity'].get('per_s')}"
                         f"/s, search {config['search']['capacity'].get('per_s')}/s at p95 < "
                         f"{args.p95_target_ms:.0f} ms; {ev['events_per_write']} events/write, "
                         f"{ev['bytes_per_event']} B/event; correct: "
                         f"{config['correctness']['holds']}\n")
    sys.stdout.write(f"wrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
