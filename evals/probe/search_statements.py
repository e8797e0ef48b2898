"""Where a small store's `memory_search` time goes: the MCP call end to end,
the query's encode alone, and each statement of memory's search
transaction, timed one by one in the order `Searcher.search` sends them
(the same repository functions, on the service's own role under RLS).

One embedded stack; N LoCoMo turns stored back to back through MCP, then
lone searches of LoCoMo questions (each query unique). Medians over the
searches. The time lift is read for every question here (the service reads
it only for questions about time), so the candidates' statement is timed at
its widest.

Usage: .venv/bin/python -m evals.probe.search_statements [--n 200] [--searches 60]
Writes evals/results/search-statements-<UTC timestamp>.json."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engram_embedder.backend import SentenceTransformerBackend
from engram_kit.db import NAMESPACE_SETTING, create_pool, pooled
from engram_memory import repo, repo_candidates
from engram_memory.identifiers import identifier_tokens
from engram_memory.settings import MemorySettings
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.bench.locomo import DEFAULT_DATA, load_conversations
from evals.harness.benchlib import command_line, results_dir, shown, stop_stack_on_sigterm
from evals.harness.peers_load import call, session, unique

NAMESPACE = "probe"
SETTLE_S = 20.0  # the stores' deferred context encodes finish before timing


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


async def mcp_searches(stack: Stack, token: str, texts: list[str],
                       queries: list[str]) -> list[float]:
    async with session(stack.mcp_url, token) as client:
        for text in texts:
            await call(client, "memory_store", {"text": text, "namespace": NAMESPACE})
        await asyncio.sleep(SETTLE_S)
        took = []
        for i, query in enumerate(queries):
            started = time.perf_counter()
            await call(client, "memory_search", {"query": unique(query, i),
                                                 "namespace": NAMESPACE, "top_k": 10})
            took.append(time.perf_counter() - started)
    return took


async def statements(dsn: str, queries: list[str]) -> dict[str, list[float]]:
    """Each statement of the search transaction, timed as the service sends it."""
    s = MemorySettings(internal_token="probe", database_url="postgresql://probe",  # pyright: ignore[reportCallIssue]
                       audit_hmac_key="p" * 32)
    terms = repo.TermLimits(s.lexical_max_df, s.lexical_match_budget, s.lexical_k1, s.lexical_b)
    filters = repo.Filters([], "", None, None)
    depth = max(40, s.search_depth)
    encoder = SentenceTransformerBackend("", "cpu")
    encoder.intra_op_threads(1)  # as the embedder encodes a lone query
    steps: dict[str, list[float]] = {}
    pool = await create_pool(dsn, schema="memory", min_size=1, max_size=1,
                             session_settings=repo.VECTOR_SCAN)
    try:
        for query in queries:
            started = time.perf_counter()
            vector = encoder.encode([query]).vectors[0]
            steps.setdefault("encode", []).append(time.perf_counter() - started)
            async with pooled(pool) as conn:
                mark = time.perf_counter()

                async def timed(name: str, step: Awaitable[Any]) -> Any:
                    nonlocal mark
                    out = await step
                    now = time.perf_counter()
                    steps.setdefault(name, []).append(now - mark)
                    mark = now
                    return out

                tx = conn.transaction()
                await timed("begin", tx.start())
                await timed("set_namespace", conn.execute(
                    "SELECT set_config($1, $2, true)", NAMESPACE_SETTING, NAMESPACE))
                dense = await timed("dense", repo.dense_ranked(
                    conn, vector, filters, depth, s.context_vector_weight))
                lexical = await timed("lexical", repo.lexical_ranked(
                    conn, query, filters, depth, terms))
                ids = list({*(i for i, _ in dense), *(i for i, _ in lexical)})
                reads = repo_candidates.LiftReads(True, identifier_tokens(query), True)
                await timed("candidates", repo_candidates.candidate_facts(
                    conn, ids, query, terms, reads))
                rows = await timed("fetch_served", repo.fetch_by_ids(conn, ids[:10]))
                await timed("contested", repo.contested_pairs(conn, list(rows)))
                await timed("commit", tx.commit())
            steps.setdefault("transaction", []).append(sum(
                steps[k][-1] for k in steps if k not in ("encode", "transaction")))
    finally:
        await pool.close()
    return steps


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="turns stored before searching")
    parser.add_argument("--searches", type=int, default=60)
    parser.add_argument("--port-offset", type=int, default=900)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    conv = load_conversations(args.data, None, 1)[0]
    texts = [t.text for t in conv.turns][:args.n]
    queries = [q.question for q in conv.questions][:args.searches]
    started, load0 = datetime.now(UTC), os.getloadavg()[0]
    data_dir = Path(tempfile.mkdtemp(prefix="engram-search-statements-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        stack.start()
        token = stack.principals.create("probe", "agent", [NAMESPACE])
        e2e = asyncio.run(mcp_searches(stack, token, texts, queries))
        steps = asyncio.run(statements(stack.service_dsn("memory"), queries))
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    result = {"timestamp": started.isoformat(timespec="seconds"), "command": command_line(),
              "machine": {"cpu_count": os.cpu_count(), "loadavg_1m_at_start": round(load0, 2),
                          "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
              "stored": len(texts), "searches": len(queries),
              "mcp_search_p50_ms": median_ms(e2e),
              "p50_ms": {name: median_ms(v) for name, v in steps.items()}}
    path = results_dir() / f"search-statements-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(json.dumps(result["p50_ms"]) + f"\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
