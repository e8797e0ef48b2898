"""SQL of the re-embed queues: rows stored while the embedder was down wait
for a vector. Entries and document chunks each have a queue; the sweep lists
them across namespaces inside its duty transaction and fills the vectors in
tenant transactions. The caller owns the transaction."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

import asyncpg
import numpy as np


@dataclass(frozen=True)
class VectorQueue:
    name: str   # what waits, for logs and metrics
    queue: str  # the queue table
    key: str    # its id column
    rows: str   # the table holding text and embedding


ENTRIES = VectorQueue("entries", "embedding_queue", "entry_id", "entries")
CHUNKS = VectorQueue("document chunks", "chunk_embedding_queue", "chunk_id", "document_chunks")


async def enqueue(conn: asyncpg.Connection, q: VectorQueue, namespace: str,
                  ids: list[UUID]) -> None:
    await conn.executemany(
        f"INSERT INTO {q.queue} ({q.key}, namespace) VALUES ($1, $2)"
        f" ON CONFLICT ({q.key}) DO NOTHING", [(i, namespace) for i in ids])


async def backlog(conn: asyncpg.Connection, q: VectorQueue, limit: int) -> list[asyncpg.Record]:
    """Oldest queued rows across namespaces (only inside the sweep duty)."""
    return await conn.fetch(
        f"SELECT namespace, {q.key} AS id FROM {q.queue} ORDER BY enqueued_at LIMIT $1", limit)


async def backlog_size(conn: asyncpg.Connection, q: VectorQueue) -> int:
    value = await conn.fetchval(f"SELECT count(*) FROM {q.queue}")
    assert value is not None  # count(*) always yields a row
    return value


async def texts(conn: asyncpg.Connection, q: VectorQueue, ids: list[UUID]) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"SELECT id, text FROM {q.rows} WHERE id = ANY($1::uuid[]) AND embedding IS NULL", ids)


async def fill(conn: asyncpg.Connection, q: VectorQueue,
               rows: list[tuple[UUID, np.ndarray]]) -> None:
    await conn.executemany(f"UPDATE {q.rows} SET embedding = $2 WHERE id = $1", rows)


async def dequeue(conn: asyncpg.Connection, q: VectorQueue, ids: list[UUID]) -> None:
    await conn.execute(f"DELETE FROM {q.queue} WHERE {q.key} = ANY($1::uuid[])", ids)
