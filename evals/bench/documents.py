"""Document search at scale: `document_search` latency through MCP as one
namespace's chunks grow, and the lexical channel against the full-text scan
it replaced (migration 0013), both timed in the same run.

Bulk chunks are synthetic (three Zipf-word sentences each, ~36 words, as
bench/scale.py writes them) with PRECOMPUTED random unit vectors, COPYed as
the admin role under one document; the HNSW index over chunks is rebuilt
after each step. Per size:
- `document_search` through the real stack (MCP -> gateway -> memory ->
  embedder), `--n` queries;
- as the memory role, over the same queries, straight SQL: the service's
  lexical channel (BM25 from postings) and the baseline, the match it
  replaced (`tsv @@` an OR query ranked by ts_rank_cd, which under RLS scans
  every chunk of the namespace). Reports their p50/p95 and the ratio.

Writes evals/results/documents-<timestamp>.json. Run: make bench-documents
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
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
from mcp import Client

from engram_memory.documents import chunk_term_limits
from engram_memory.repo_documents import lexical_chunks
from engram_memory.settings import MemorySettings
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.harness.benchlib import (
    agent_token,
    command_line,
    parse_with_smoke,
    results_dir,
    stop_stack_on_sigterm,
)
from evals.harness.synthetic import NAMESPACE, bulk_chunks, pct, sentence
from tests.helpers import call, mcp_client

RESULTS = results_dir()
FULL_TEXT_SCAN = (  # the lexical channel before migration 0013
    "WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', $1)::text, ' & ', ' | '),"
    " '')::tsquery AS tsq)"
    " SELECT c.id, ts_rank_cd(c.tsv, q.tsq) AS score FROM document_chunks c, q"
    " WHERE q.tsq IS NOT NULL AND c.tsv @@ q.tsq ORDER BY score DESC LIMIT $2")




async def timed(queries: list[str], run: Callable[[str], Awaitable[list]]) -> tuple[list, float]:
    """Seconds per query, and the mean number of rows a query returned."""
    out, rows = [], 0
    for q in queries:
        started = time.perf_counter()
        rows += len(await run(q))
        out.append(time.perf_counter() - started)
    return out, rows / len(queries)


async def call_documents(client: Client, query: str) -> list:
    return (await call(client, "document_search", {"query": query, "top_k": 10}))["documents"]


async def measure(stack: Stack, queries: list[str]) -> dict:
    async with mcp_client(stack.mcp_url, agent_token(stack)) as client:
        mcp, served = await timed(queries, lambda q: call_documents(client, q))
    conn = await asyncpg.connect(stack.service_dsn("memory"))
    defaults = MemorySettings.model_fields  # the service's defaults, as Documents uses them
    limits = chunk_term_limits(defaults["lexical_max_df"].default,
                               defaults["lexical_match_budget"].default)
    try:
        async with conn.transaction():
            await conn.execute("SET LOCAL search_path = memory")
            await conn.execute("SELECT set_config('engram.namespace', $1, true)", NAMESPACE)
            postings, found = await timed(queries, lambda q: lexical_chunks(conn, q, 40, limits))
            scan, matched = await timed(queries, lambda q: conn.fetch(FULL_TEXT_SCAN, q, 40))
    finally:
        await conn.close()
    return {"document_search_p50_ms": pct(mcp, 50), "document_search_p95_ms": pct(mcp, 95),
            "lexical_p50_ms": pct(postings, 50), "lexical_p95_ms": pct(postings, 95),
            "baseline_full_text_scan_p50_ms": pct(scan, 50),
            "baseline_full_text_scan_p95_ms": pct(scan, 95),
            "lexical_speedup_p50": pct(scan, 50) / pct(postings, 50),
            "mean_rows": {"document_search": served, "lexical": found, "baseline": matched}}


async def run(args: argparse.Namespace, save: Callable[[list[dict]], None]) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="engram-documents-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    stack.start()
    rng, document, points, have = random.Random(7), uuid.uuid4(), [], 0
    try:
        for size in args.chunks:
            loaded = await bulk_chunks(stack.postgres.admin_dsn, document, have, size - have,
                                       rng)
            have = size
            queries = [" ".join(sentence(rng, i).split()[:rng.randint(2, 8)])
                       for i in range(args.n)]
            points.append({"chunks": size, **loaded, **await measure(stack, queries)})
            save(points)
            sys.stdout.write(json.dumps(points[-1]) + "\n")
            sys.stdout.flush()
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def main() -> None:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--n", type=int, default=30, help="timed queries per size")
    parser.add_argument("--port-offset", type=int, default=650)
    args = parse_with_smoke(parser, {"chunks": [300], "n": 5})
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"documents-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"

    def save(points: list[dict]) -> None:
        path.write_text(json.dumps({
            "timestamp": datetime.now(UTC).isoformat(),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
            "command": command_line(),
            "chunks": "synthetic: three Zipf-word sentences each, precomputed random vectors",
            "queries": "2-8 words of a synthetic sentence; document_search top_k=10; "
                       "lexical channel and baseline: 40 candidates, as the memory role",
            "points": points}, indent=2))

    asyncio.run(run(args, save))
    sys.stdout.write(f"wrote {path}\n")


if __name__ == "__main__":
    main()
