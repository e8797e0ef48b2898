"""Reliability campaign: faults injected into a real `engram up` under a mixed
load of MCP and REST clients, plus fuzzing and a multi-principal isolation
run. Each scenario reports whether its "must hold" held; a failing one is
reported as failing.

Usage: .venv/bin/python -m evals.bench.reliability [--smoke] [--only NAME ...]
                                                     [--peer | --no-peer]
The peer (Pseudolife-MCP, reliability_peer) runs after engram's stack is
stopped, in a venv of its own; on by default, off in smoke mode.
Writes evals/results/reliability-<UTC timestamp>.json (or under
$ENGRAM_BENCH_RESULTS_DIR) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.harness.benchlib import command_line, results_dir, shown, stop_stack_on_sigterm
from evals.reliability.faults import SERVICES, EngramUp
from evals.reliability.fuzz import fuzz_mcp, fuzz_rest, isolation
from evals.reliability.peer import PACKAGE, compare, run_peer
from evals.reliability.scenarios import (
    FULL,
    SMOKE,
    Sizes,
    concurrency,
    kill_each,
    outage,
    postgres_restart,
)

# Each schemathesis run's time bound (its coverage phase alone is several
# cases per constraint of every operation, whatever the example count).
REST_FUZZ_BUDGET_S = {True: 600.0, False: 1800.0}

MUST_HOLD = {
    "kill_each": "0 acknowledged writes lost; 0 duplicate effects; recovery with no person",
    "nats_down": "writes keep succeeding; the outbox drains after; events applied once",
    "embedder_down": "writes keep succeeding (embedded: false); lexical search; "
                     "every vector filled after",
    "postgres_restart": "typed retryable errors, never a 500 or a hang; pools recover",
    "concurrency": "error rate 0; p50/p95/p99 per tool; no unbounded growth",
    "fuzz_mcp": "0 untyped errors or crashes over every MCP tool",
    "fuzz_rest": "0 5xx or dropped connections over every REST route "
                 "(as an agent; role-gated routes as an operator)",
    "isolation": "0 cross-namespace reads over every read path",
}


def scenarios(up: EngramUp, sizes: Sizes, smoke: bool) -> dict[str, Callable[[], Any]]:
    targets = [*SERVICES, "nats", "postgres"]
    return {
        "kill_each": lambda: asyncio.run(kill_each(up, sizes, targets)),
        "nats_down": lambda: asyncio.run(outage(up, sizes, "nats")),
        "embedder_down": lambda: asyncio.run(outage(up, sizes, "embedder")),
        "postgres_restart": lambda: asyncio.run(postgres_restart(up, sizes)),
        "concurrency": lambda: asyncio.run(concurrency(up, sizes)),
        "fuzz_mcp": lambda: fuzz_mcp(up, sizes.fuzz_examples),
        "fuzz_rest": lambda: fuzz_rest(up, 3 if smoke else 8, REST_FUZZ_BUDGET_S[smoke]),
        "isolation": lambda: asyncio.run(isolation(up, sizes.principals,
                                                   20 if smoke else 200)),
    }


def run_all(up: EngramUp, sizes: Sizes, smoke: bool, only: list[str]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for name, fn in scenarios(up, sizes, smoke).items():
        if only and name not in only:
            continue
        sys.stdout.write(f"== {name}\n")
        sys.stdout.flush()
        started = time.monotonic()
        try:
            result = fn()
        except Exception as exc:  # noqa: BLE001 (a scenario that crashes is a failing one)
            result = {"holds": False, "harness_error": repr(exc)[:500]}
        result["seconds"] = round(time.monotonic() - started, 1)
        result["must_hold"] = MUST_HOLD[name]
        results[name] = result
        sys.stdout.write(f"   holds={result['holds']} ({result['seconds']} s)\n")
        if not up.all_ready():  # the next scenario needs a whole stack
            up.recover("stack", None, time.monotonic())
    return results


def table(results: dict[str, Any]) -> str:
    rows = ["| scenario | must hold | held | evidence |", "|---|---|---|---|"]
    for name, r in results.items():
        evidence = {k: r[k] for k in ("recovered_by_itself", "read_back", "drained_after_s",
                                      "ready_again_after_s", "errors", "failures",
                                      "failed_operations", "cross_namespace_reads",
                                      "harness_error") if k in r}
        text = json.dumps(evidence)[:300].replace("|", "/")
        rows.append(f"| {name} | {r['must_hold']} | {'yes' if r['holds'] else '**no**'} | "
                    f"{text} |")
    return "\n".join(rows)


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, a few minutes")
    parser.add_argument("--only", nargs="*", default=[], choices=list(MUST_HOLD))
    parser.add_argument("--port-offset", type=int, default=1000)
    parser.add_argument("--peer", action=argparse.BooleanOptionalAction, default=None,
                        help="also run the kill and load scenarios against Pseudolife-MCP "
                             "(default: on, off with --smoke)")
    args = parser.parse_args()
    with_peer = (not args.smoke) if args.peer is None else args.peer
    sizes = SMOKE if args.smoke else FULL
    started_at = datetime.now(UTC)
    load_at_start = os.getloadavg()[0]
    data_dir = Path(tempfile.mkdtemp(prefix="engram-reliability-")) / "data"
    up = EngramUp(data_dir, args.port_offset)
    try:
        cold = up.start()
        results = run_all(up, sizes, args.smoke, args.only)
    finally:
        up.stop()
        shutil.rmtree(data_dir.parent, ignore_errors=True)
    load_before_peer = os.getloadavg()[0]
    if with_peer:
        sys.stdout.write("== peer\n")
        sys.stdout.flush()
        peer = run_peer(sizes, 8765 + args.port_offset + 100)
        peer["comparison"] = compare(results, peer)
        sys.stdout.write(f"   peer status={peer['status']}\n")
    else:
        peer = {"name": PACKAGE, "status": "not run", "reason": "--no-peer (or --smoke)"}
    result = {
        "timestamp": started_at.isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": platform.python_version(),
                    "loadavg_1m_at_start": round(load_at_start, 2),
                    "loadavg_1m_before_peer": round(load_before_peer, 2),
                    "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
        "mode": "smoke" if args.smoke else "full", "sizes": sizes.__dict__,
        "cold_start_s": round(cold, 1),
        "all_hold": all(r["holds"] for r in results.values()),
        "scenarios": results,
        "peer": peer,
        "command": command_line(),
    }
    out_dir = results_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = "-smoke" if args.smoke else ""
    path = out_dir / f"reliability-{started_at.strftime('%Y%m%dT%H%M%SZ')}{suffix}.json"
    path.write_text(json.dumps(result, indent=2, default=str) + "\n")
    sys.stdout.write(table(results) + "\n")
    sys.stdout.write(f"all hold: {result['all_hold']}\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
