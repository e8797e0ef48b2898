"""Synthetic corpora the scale and documents benchmarks load in bulk:
Zipf-distributed pseudo-word sentences, and chunks COPYed with random unit
vectors (bench/scale.py, bench/documents.py)."""

from __future__ import annotations

import random
import time
import uuid

import asyncpg
import numpy as np
from pgvector.asyncpg import register_vector

from engram_cli.progress import track

NAMESPACE = "default"
# A Zipf-distributed vocabulary of pseudo-words, so term frequencies look
# like text (a tiny vocabulary would make every query term match every row).
_RNG = random.Random(5)
VOCAB = ["".join(_RNG.choice("bcdfghjklmnprstvz") + _RNG.choice("aeiou") for _ in range(3))
         for _ in range(5_000)]
WEIGHTS = [1 / (rank + 1) for rank in range(len(VOCAB))]


def sentence(rng: random.Random, i: int) -> str:
    # No shared prefix: a term in every row would make each OR lexical match
    # the whole namespace (ranking cost grows with the number of matches).
    words = rng.choices(VOCAB, weights=WEIGHTS, k=rng.randint(6, 18))
    return " ".join(words).capitalize() + f" ({i})."


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q))


CHUNKS_HNSW_INDEX = "document_chunks_hnsw"


def chunk_text(rng: random.Random, i: int) -> str:
    return " ".join(sentence(rng, i * 3 + k) for k in range(3))


async def bulk_chunks(dsn: str, document: uuid.UUID, start: int, count: int,
                      rng: random.Random) -> dict:
    conn = await asyncpg.connect(dsn)
    await register_vector(conn)
    try:
        started = time.perf_counter()
        if start == 0:
            await conn.execute(
                "INSERT INTO memory.documents (id, namespace, source, title, format, content,"
                " content_hash, created_by) VALUES ($1, $2, 'bench', 'synthetic', 'text',"
                " 'synthetic chunks', $3, 'bench')", document, NAMESPACE, document.hex)
        index_def = await conn.fetchval(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'memory' AND indexname = $1",
            CHUNKS_HNSW_INDEX)
        await conn.execute(f"DROP INDEX memory.{CHUNKS_HNSW_INDEX}")
        batches = range(start, start + count, 5_000)
        for offset in track(batches, f"load {count:,} chunks", len(batches), "batch"):
            rows = []
            for i in range(offset, min(offset + 5_000, start + count)):
                vec = np.asarray([rng.gauss(0, 1) for _ in range(384)], dtype=np.float32)
                rows.append((uuid.uuid4(), NAMESPACE, document, i, 0, chunk_text(rng, i),
                             vec / np.linalg.norm(vec)))
            await conn.copy_records_to_table(
                "document_chunks", schema_name="memory", records=rows,
                columns=["id", "namespace", "document_id", "ordinal", "start_char", "text",
                         "embedding"])
        copied = time.perf_counter()
        await conn.execute("SET maintenance_work_mem = '2GB'")
        await conn.execute(index_def)
        await conn.execute("ANALYZE memory.document_chunks, memory.chunk_lexemes,"
                           " memory.chunk_lexicon")
        return {"copy_s": copied - started, "index_build_s": time.perf_counter() - copied}
    finally:
        await conn.close()
