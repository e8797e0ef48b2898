"""Scale benchmark: memory_store / memory_search latency through MCP as one
namespace grows (10k, 100k entries by default), HNSW insert cost and storage
per entry.

Bulk rows are synthetic sentences with PRECOMPUTED vectors (random unit
vectors, not the model's), inserted with COPY as the admin role; the timed
stores and searches go through the real stack (MCP -> gateway -> memory ->
embedder). Sizes beyond what is run are extrapolated and marked as such.

With --index-after, each bulk step drops the HNSW index, COPYs, and rebuilds
it from its own definition (as a bulk import would); the build time is
reported apart from the COPY. Without it, COPY maintains the index row by
row. The artefact is rewritten after every size, so a run stopped early
keeps what it measured.

Writes evals/results/scale-<timestamp>.json. Run: make bench-scale
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import numpy as np
from pgvector.asyncpg import register_vector

from engram_cli.progress import track
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


HNSW_INDEX = "entries_embedding_hnsw"


async def bulk_insert(dsn: str, start: int, count: int, rng: random.Random,
                      index_after: bool, maintenance_mem: str) -> dict:
    conn = await asyncpg.connect(dsn)
    await register_vector(conn)
    now = datetime.now(UTC)
    try:
        started = time.perf_counter()
        if index_after:
            index_def = await conn.fetchval(
                "SELECT indexdef FROM pg_indexes WHERE schemaname = 'memory'"
                " AND indexname = $1", HNSW_INDEX)
            await conn.execute(f"DROP INDEX memory.{HNSW_INDEX}")
        batch = 5_000
        batches = range(start, start + count, batch)
        for offset in track(batches, f"load {count:,} entries", len(batches), "batch"):
            rows = []
            for i in range(offset, min(offset + batch, start + count)):
                text = sentence(rng, i)
                vec = np.asarray([rng.gauss(0, 1) for _ in range(384)], dtype=np.float32)
                rows.append((uuid.uuid4(), NAMESPACE, text,
                             hashlib.sha256(text.lower().encode()).hexdigest(), "scale",
                             ["scale"], "agent", "bench", now, vec / np.linalg.norm(vec)))
            await conn.copy_records_to_table(
                "entries", schema_name="memory", records=rows,
                columns=["id", "namespace", "text", "text_hash", "source", "tags", "origin",
                         "writer_principal", "valid_from", "embedding"])
        copied = time.perf_counter()
        if index_after:
            await conn.execute(f"SET maintenance_work_mem = '{maintenance_mem}'")
            await conn.execute(index_def)
        built = time.perf_counter()
        # Fresh planner statistics, as autovacuum would give a live system.
        await conn.execute("ANALYZE memory.entries")
        total_s = time.perf_counter() - started
        return {"bulk_insert_s": total_s, "insert_rows_per_s": count / total_s,
                "copy_s": copied - started,
                "index_build_s": built - copied if index_after else None,
                "insert_mode": "copy, then HNSW rebuilt over the whole table" if index_after
                               else "copy with the HNSW index maintained per row"}
    finally:
        await conn.close()




async def measure(stack: Stack, token: str, n: int, rng: random.Random) -> dict:
    stores, searches = [], []
    async with mcp_client(stack.mcp_url, token) as client:
        for i in range(n):
            started = time.perf_counter()
            await call(client, "memory_store", {"text": f"Timed write {rng.random()}: "
                                                        + sentence(rng, i)})
            stores.append(time.perf_counter() - started)
            started = time.perf_counter()
            await call(client, "memory_search", {"query": sentence(rng, i), "top_k": 10})
            searches.append(time.perf_counter() - started)
    return {"store_p50_ms": pct(stores, 50), "store_p95_ms": pct(stores, 95),
            "search_p50_ms": pct(searches, 50), "search_p95_ms": pct(searches, 95)}


async def storage(dsn: str) -> dict:
    """Bytes per entry over the whole memory schema (tables, indexes, TOAST),
    and per table: the entries themselves, their postings, versions."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetchval("SELECT count(*) FROM memory.entries")
        tables = {r["relname"]: r["bytes"] for r in await conn.fetch(
            "SELECT c.relname, pg_total_relation_size(c.oid) AS bytes FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'memory' AND c.relkind = 'r' ORDER BY bytes DESC")}
        hnsw = await conn.fetchval("SELECT pg_relation_size('memory.entries_embedding_hnsw')")
    finally:
        await conn.close()
    per_entry = max(rows, 1)
    return {"rows": rows, "bytes_per_entry": sum(tables.values()) / per_entry,
            "entries_bytes_per_entry": tables["entries"] / per_entry,
            "bytes_per_entry_by_table": {name: round(size / per_entry)
                                         for name, size in tables.items() if size >= per_entry},
            "hnsw_bytes": hnsw}


CHUNK_TABLE_PREFIXES = ("document", "chunk")


async def chunk_tables(dsn: str) -> dict:
    """Bytes of the document tables (chunks, their postings and lexicon, the
    documents) with their indexes and TOAST, and the chunks' mean text size."""
    conn = await asyncpg.connect(dsn)
    try:
        tables = {r["relname"]: r["bytes"] for r in await conn.fetch(
            "SELECT c.relname, pg_total_relation_size(c.oid) AS bytes FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'memory' AND c.relkind = 'r'")
            if r["relname"].startswith(CHUNK_TABLE_PREFIXES)}
        text = await conn.fetchval("SELECT avg(octet_length(text)) FROM memory.document_chunks")
        hnsw = await conn.fetchval("SELECT pg_relation_size('memory.document_chunks_hnsw')")
    finally:
        await conn.close()
    return {"tables": tables, "text_bytes": float(text or 0), "hnsw_bytes": hnsw}


async def chunks_point(dsn: str, count: int, rng: random.Random) -> dict:
    """`count` synthetic chunks under one document (as bench/documents.py
    loads them), the chunks' HNSW index rebuilt after the COPY, and the bytes
    they added per chunk. The document's own text (documents.content) is a
    few bytes here; a real document holds about its chunks' text again."""

    before = await chunk_tables(dsn)
    loaded = await bulk_chunks(dsn, uuid.uuid4(), 0, count, rng)
    after = await chunk_tables(dsn)
    grown = {k: v - before["tables"].get(k, 0) for k, v in after["tables"].items()}
    return {"chunks": count, "copy_s": loaded["copy_s"], "index_build_s": loaded["index_build_s"],
            "bytes_per_chunk": sum(grown.values()) / count,
            "bytes_per_chunk_by_table": {k: round(v / count) for k, v in grown.items()
                                         if v >= count},
            "chunk_text_bytes_mean": after["text_bytes"],
            "hnsw_bytes": after["hnsw_bytes"], "hnsw_bytes_per_chunk": after["hnsw_bytes"] / count}


async def run(args: argparse.Namespace, save: Callable[..., None]) -> dict:
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="engram-scale-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    stack.postgres.settings.extend(args.pg_setting)
    stack.start()
    rng = random.Random(11)
    points, have = [], 0
    try:
        for size in args.sizes:
            loaded = await bulk_insert(stack.postgres.admin_dsn, have, size - have, rng,
                                       args.index_after, args.maintenance_mem)
            have = size
            point = {"entries": size, **loaded,
                     **await measure(stack, agent_token(stack), args.n, rng),
                     **await storage(stack.postgres.admin_dsn)}
            points.append(point)
            save(points)
            sys.stdout.write(json.dumps(point) + "\n")
            sys.stdout.flush()
        if args.chunks:
            chunks = await chunks_point(stack.postgres.admin_dsn, args.chunks, rng)
            save(points, chunks)
            sys.stdout.write(json.dumps(chunks) + "\n")
    finally:
        stack.stop()
        if not args.data_dir:  # a 1M run leaves ~5 GB behind otherwise
            shutil.rmtree(data_dir, ignore_errors=True)
    return {"points": points}


def report(args: argparse.Namespace, points: list[dict], chunks: dict | None = None) -> dict:
    first, last = points[0], points[-1]
    growth = last["search_p95_ms"] / first["search_p95_ms"]
    return {
        "timestamp": datetime.now(UTC).isoformat(),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "command": command_line(),
        "vectors": "bulk rows: precomputed random unit vectors; timed writes/searches: the "
                   "real embedder through MCP",
        "storage": "bytes_per_entry: every table of the memory schema with its indexes and "
                   "TOAST, per entry (runs before 2026-11-30T12 counted memory.entries only; "
                   "that figure is entries_bytes_per_entry)",
        "sizes_asked": args.sizes,
        "postgres_settings": args.pg_setting or "defaults",
        "points": points,
        "chunks": chunks,
        "search_p95_growth": {"from": first["entries"], "to": last["entries"], "ratio": growth},
        "extrapolated_1m": {
            "note": "EXTRAPOLATION, not measured: linear in bulk insert time; search p95 "
                    "scaled by the measured growth per 10x",
            "bulk_insert_s": 1_000_000 / last["insert_rows_per_s"],
            "search_p95_ms": last["search_p95_ms"] * growth ** (
                np.log10(1_000_000 / last["entries"]) / np.log10(last["entries"]
                                                                  / first["entries"])),
        } if last["entries"] < 1_000_000 and len(points) > 1 else None,
    }


def main() -> None:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--n", type=int, default=100, help="timed stores and searches per size")
    parser.add_argument("--index-after", action="store_true",
                        help="drop the HNSW index for each bulk step and rebuild it after")
    parser.add_argument("--maintenance-mem", default="4GB",
                        help="maintenance_work_mem for the rebuild (the graph should fit)")
    parser.add_argument("--pg-setting", action="append", default=[], metavar="NAME=VALUE",
                        help="extra Postgres server setting, e.g. shared_buffers=2GB (repeatable)")
    parser.add_argument("--port-offset", type=int, default=600)
    parser.add_argument("--data-dir", default="")
    parser.add_argument("--chunks", type=int, default=0,
                        help="after the entries, this many document chunks: bytes per chunk "
                             "and the chunks' HNSW build time")
    parser.add_argument("--variant", default="",
                        help="artefact name suffix (scale-<ts>-<variant>.json): a run the "
                             "benchmarks page does not take as the newest of its kind")
    args = parse_with_smoke(parser, {"sizes": [500], "n": 10, "chunks": 500})
    RESULTS.mkdir(exist_ok=True)
    suffix = f"-{args.variant}" if args.variant else ""
    path = RESULTS / f"scale-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}{suffix}.json"

    def save(points: list[dict], chunks: dict | None = None) -> None:
        path.write_text(json.dumps(report(args, points, chunks), indent=2))

    asyncio.run(run(args, save))
    sys.stdout.write(f"wrote {path}\n")


if __name__ == "__main__":
    main()
