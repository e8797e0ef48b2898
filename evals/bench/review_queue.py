"""Review queue at scale: page latency of `review_list` (MCP) and of the
console's review page (HTTP) over N open conflicts, for the first, middle and
last page of a cursor walk.

Starts the embedded stack. A few conflicts are made through MCP `fact_set`
(two writes on one slot, as an agent makes them) to measure the real write
path's rate; the rest are bulk-inserted into the cortex tables with the admin
DSN (the same rows the write path leaves: two contested facts and an open
conflict), since 10,000 through MCP takes most of an hour on a small machine.
Then one full cursor walk checks every item is listed exactly once, and each
of the three pages is fetched `--repeats` times through MCP and through the
console (signed in as a reviewer).

Usage: .venv/bin/python -m evals.bench.review_queue [--n 10000] [--repeats 30]
       [--port-offset 950]
Writes evals/results/review-queue-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.harness.benchlib import (
    command_line,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
)

RESULTS_DIR = results_dir()
NS = "review-bench"
PAGE = 100
BULK = """
CREATE TEMP TABLE seed ON COMMIT DROP AS
  SELECT g, gen_random_uuid() AS a, gen_random_uuid() AS b FROM generate_series(1, $2) g;
INSERT INTO cortex.facts (id, namespace, entity, attribute, value, kind, verdict,
                          writer_principal, evidence_quote)
  SELECT a, '{ns}', 'bulk-' || lpad(g::text, 5, '0'), 'ci', 'alpha-' || g, 'STATE',
         'contested', 'bench', 'bulk seed' FROM seed
  UNION ALL
  SELECT b, '{ns}', 'bulk-' || lpad(g::text, 5, '0'), 'ci', 'beta-' || g, 'STATE',
         'contested', 'bench', 'bulk seed' FROM seed;
INSERT INTO cortex.conflicts (namespace, id, fact_a, fact_b, lane)
  SELECT '{ns}', gen_random_uuid(), a, b, 'contested' FROM seed ORDER BY g;
"""


def client(stack: Stack, token: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60.0)
    return Client(streamable_http_client(stack.mcp_url, http_client=http))


def reply(result: Any) -> dict[str, Any]:
    if result.is_error:
        raise RuntimeError(str(result.content))
    return result.structured_content or json.loads(result.content[0].text)


async def seed_mcp(stack: Stack, token: str, n: int) -> float:
    """Seconds per conflict made through MCP fact_set."""
    started = time.monotonic()
    async with client(stack, token) as c:
        for i in range(n):
            slot = {"entity": f"mcp-{i:04d}", "attribute": "ci", "namespace": NS}
            await c.call_tool("fact_set", slot | {"value": f"alpha-{i}"})
            other = reply(await c.call_tool("fact_set", slot | {"value": f"beta-{i}"}))
            assert other["action"] == "contest", other
    return (time.monotonic() - started) / max(n, 1)


async def seed_bulk(dsn: str, n: int) -> float:
    started = time.monotonic()
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            statements = [s for s in BULK.format(ns=NS).split(";") if s.strip()]
            await conn.execute(statements[0].replace("$2", str(int(n))))
            for s in statements[1:]:
                await conn.execute(s)
    finally:
        await conn.close()
    return time.monotonic() - started


async def walk(c: Client) -> tuple[list[str], list[str], int]:
    """(item ids, the cursor of each page, total) over one full walk."""
    ids: list[str] = []
    cursors, cursor, total = [""], "", 0
    while True:
        page = reply(await c.call_tool("review_list", {"namespace": NS, "limit": PAGE,
                                                        "cursor": cursor}))
        ids += [i["id"] for i in page["items"]]
        total, cursor = page["total"], page["next_cursor"]
        if not cursor:
            return ids, cursors, total
        cursors.append(cursor)


def summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {"p50_ms": round(statistics.median(ms), 1),
            "p95_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 1),
            "n": len(ms)}


async def console_session(stack: Stack, token: str) -> httpx2.AsyncClient:
    base = stack.mcp_url.removesuffix("/mcp")
    http = httpx2.AsyncClient(base_url=base, timeout=60.0, follow_redirects=False)
    form = await http.get("/console/signin")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert csrf, "the sign-in form carries a CSRF token"
    done = await http.post("/console/signin", data={"csrf": csrf.group(1), "token": token})
    assert done.status_code in (302, 303), done.text[:300]
    return http


async def measure(stack: Stack, reviewer: str, repeats: int) -> dict[str, Any]:
    async with client(stack, reviewer) as c:
        started = time.monotonic()
        ids, cursors, total = await walk(c)
        walked = time.monotonic() - started
        assert len(ids) == len(set(ids)) == total, (len(ids), len(set(ids)), total)
        picks = {"first": cursors[0], "middle": cursors[len(cursors) // 2],
                 "last": cursors[-1]}
        mcp: dict[str, Any] = {}
        for name, cursor in picks.items():
            times = []
            for _ in range(repeats):
                t = time.monotonic()
                reply(await c.call_tool("review_list", {"namespace": NS, "limit": PAGE,
                                                        "cursor": cursor}))
                times.append(time.monotonic() - t)
            mcp[name] = summary(times)
    http = await console_session(stack, reviewer)
    console: dict[str, Any] = {}
    try:
        for name, cursor in picks.items():
            times = []
            for _ in range(repeats):
                t = time.monotonic()
                r = await http.get("/console/review", params={"ns": NS, "size": PAGE,
                                                              "cursor": cursor})
                times.append(time.monotonic() - t)
                assert r.status_code == 200, r.text[:300]
            console[name] = summary(times)
    finally:
        await http.aclose()
    return {"items": total, "pages": len(cursors), "full_walk_s": round(walked, 2),
            "mcp": mcp, "console_http": console}


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10000, help="open conflicts in all")
    parser.add_argument("--mcp-seed", type=int, default=30,
                        help="how many of them are made through MCP (timed)")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--port-offset", type=int, default=950)
    args = parse_with_smoke(parser, {"n": 150, "mcp_seed": 5, "repeats": 3})
    started_at = datetime.now(UTC)
    data_dir = Path(tempfile.mkdtemp(prefix="engram-review-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        stack.start()
        agent = stack.principals.create("review-bench-agent", "agent", [NS])
        reviewer = stack.principals.create("review-bench-reviewer", "reviewer", [NS])
        per_mcp = asyncio.run(seed_mcp(stack, agent, args.mcp_seed))
        bulk_s = asyncio.run(seed_bulk(stack.postgres.admin_dsn, args.n - args.mcp_seed))
        measured = asyncio.run(measure(stack, reviewer, args.repeats))
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    result = {
        "timestamp": started_at.isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": platform.python_version()},
        "open_conflicts": args.n, "page_size": PAGE, "repeats": args.repeats,
        "seeding": {"through_mcp": args.mcp_seed,
                    "mcp_s_per_conflict": round(per_mcp, 3),
                    "mcp_estimate_for_all_s": round(per_mcp * args.n),
                    "bulk": args.n - args.mcp_seed, "bulk_s": round(bulk_s, 2)},
        **measured,
        "command": command_line(),
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"review-queue-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(json.dumps({k: result[k] for k in ("seeding", "mcp", "console_http")},
                                indent=1) + f"\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
