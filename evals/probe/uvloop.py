"""Does uvloop pay? Two embedded stacks side by side, every service of the
second on uvloop (`ENGRAM_EVENT_LOOP=uvloop`: the gRPC services' loops and
the gateway's uvicorn); lone calls interleaved call by call on empty stores
with nothing waited for between them, then rounds of N concurrent clients
alternating between the stacks. The gateway's HTTP parser stays h11 in both
(its connection guard is an h11 protocol), so httptools is not measured.

Usage: .venv/bin/python -m evals.probe.uvloop [--clients 8]
Writes evals/results/uvloop-<UTC timestamp>.json."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.bench.locomo import DEFAULT_DATA, load_conversations
from evals.bench.peers import engram_target
from evals.harness.benchlib import command_line, results_dir, shown, stop_stack_on_sigterm
from evals.harness.peers_load import Target, concurrent, merge_rounds, sequential

ARMS = ("asyncio", "uvloop")


async def measure(targets: list[Target], texts: list[str], queries: list[str],
                  args: argparse.Namespace) -> dict:
    seq = await sequential(targets, texts[:args.lone_n], queries[:args.lone_n], "uv-lone", 3)
    rounds: dict[str, list[dict]] = {t.name: [] for t in targets}
    for r in range(args.rounds):
        for t in targets if r % 2 == 0 else targets[::-1]:
            rounds[t.name].append(await concurrent(t, args.clients, args.concurrent_s, texts,
                                                   queries, f"uv-load-r{r}", seed=r))
    return {"sequential": seq, "concurrent": {n: merge_rounds(rs) for n, rs in rounds.items()}}


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--concurrent-s", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--lone-n", type=int, default=60)
    parser.add_argument("--port-offset", type=int, default=600, help="the second adds 100")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    conv = load_conversations(args.data, None, 1)[0]
    texts, queries = [t.text for t in conv.turns], [q.question for q in conv.questions]
    started, load0 = datetime.now(UTC), os.getloadavg()[0]
    dirs = [Path(tempfile.mkdtemp(prefix="engram-uv-")) for _ in ARMS]
    stacks: list[Stack] = []
    try:
        for i, arm in enumerate(ARMS):
            os.environ["ENGRAM_EVENT_LOOP"] = arm  # the services inherit this environment
            stack = Stack(RunnerSettings(data_dir=dirs[i], port_offset=args.port_offset + 100 * i))
            stacks.append(stack)
            stack.start()
        scopes = ["uv-lone", "uv-lone-warmup", *(f"uv-load-r{r}-c{c}" for r in range(args.rounds)
                                                 for c in range(args.clients))]
        targets = []
        for arm, stack in zip(ARMS, stacks, strict=True):
            t = engram_target(stack, stack.principals.create("uv", "agent", scopes))
            t.name = arm
            targets.append(t)
        got = asyncio.run(measure(targets, texts, queries, args))
    finally:
        os.environ.pop("ENGRAM_EVENT_LOOP", None)
        for stack in stacks:
            stack.stop()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    result = {"timestamp": started.isoformat(timespec="seconds"), "command": command_line(),
              "machine": {"cpu_count": os.cpu_count(), "loadavg_1m_at_start": round(load0, 2),
                          "loadavg_1m_at_end": round(os.getloadavg()[0], 2)}, **got}
    path = results_dir() / f"uvloop-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    for arm in ARMS:
        s, c = got["sequential"][arm], got["concurrent"][arm]
        sys.stdout.write(f"{arm:8s} store p50 {s['store']['p50_ms']} search p50 "
                         f"{s['search']['p50_ms']} | x{args.clients} {c['ops_per_s']} ops/s "
                         f"p99 {c['p99_ms']} ms\n")
    sys.stdout.write(f"wrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
