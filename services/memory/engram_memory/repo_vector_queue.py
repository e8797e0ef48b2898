"""SQL of the re-embed queues: rows stored while the embedder was down wait
for a vector, and entries wait for their context vector (migration 0021),
which is filled after the write is acknowledged. Each queue is listed
across namespaces inside the sweep's duty transaction; the vectors are
filled in tenant transactions. The caller owns the transaction."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

import asyncpg
import numpy as np

from engram_kit.rows import select_list

from .rows_documents import ContextText, Queued
from .rows_episodes import TextRow

# context_texts reads the entry (e), the line before it (p) and the one before that (pp).
_CONTEXT = {"id": "e.id", "text": "e.text", "context_of": "e.context_of",
            "context_of_prior": "e.context_of_prior", "before_text": "p.text AS before_text",
            "prior_text": "pp.text AS prior_text"}


@dataclass(frozen=True)
class VectorQueue:
    name: str   # what waits, for logs and metrics
    queue: str  # the queue table
    key: str    # its id column
    rows: str   # the table holding text and embedding
    label: str  # the `kind` label of the sweep's metrics


ENTRIES = VectorQueue("entries", "embedding_queue", "entry_id", "entries", "entries")
CHUNKS = VectorQueue("document chunks", "chunk_embedding_queue", "chunk_id", "document_chunks",
                     "document_chunks")
CONTEXTS = VectorQueue("context vectors", "context_vector_queue", "entry_id", "entries",
                       "context_vectors")


async def enqueue(conn: asyncpg.Connection, q: VectorQueue, namespace: str,
                  ids: list[UUID]) -> None:
    await conn.executemany(
        f"INSERT INTO {q.queue} ({q.key}, namespace) VALUES ($1, $2)"
        f" ON CONFLICT ({q.key}) DO NOTHING", [(i, namespace) for i in ids])


async def backlog(conn: asyncpg.Connection, q: VectorQueue, limit: int) -> list[Queued]:
    """Oldest queued rows across namespaces (only inside the sweep duty)."""
    return Queued.all(await conn.fetch(
        f"SELECT {select_list(Queued, {'id': f'{q.key} AS id'})} FROM {q.queue}"
        " ORDER BY enqueued_at LIMIT $1", limit))


async def backlog_size(conn: asyncpg.Connection, q: VectorQueue) -> int:
    value = await conn.fetchval(f"SELECT count(*) FROM {q.queue}")
    assert value is not None  # count(*) always yields a row
    return value


async def texts(conn: asyncpg.Connection, q: VectorQueue, ids: list[UUID]) -> list[TextRow]:
    return TextRow.all(await conn.fetch(
        f"SELECT {select_list(TextRow)} FROM {q.rows}"
        " WHERE id = ANY($1::uuid[]) AND embedding IS NULL", ids))


async def fill(conn: asyncpg.Connection, q: VectorQueue,
               rows: list[tuple[UUID, np.ndarray]]) -> None:
    await conn.executemany(f"UPDATE {q.rows} SET embedding = $2 WHERE id = $1", rows)


async def dequeue(conn: asyncpg.Connection, q: VectorQueue, ids: list[UUID]) -> None:
    await conn.execute(f"DELETE FROM {q.queue} WHERE {q.key} = ANY($1::uuid[])", ids)


async def context_texts(conn: asyncpg.Connection, ids: list[UUID]) -> list[ContextText]:
    """The queued entries still waiting for a context vector, with the texts
    of the line before each (`before_text`) and the one before that
    (`prior_text`); an entry whose line was forgotten meanwhile has lost its
    reference and is not listed."""
    return ContextText.all(await conn.fetch(
        f"SELECT {select_list(ContextText, _CONTEXT)}"
        " FROM entries e JOIN entries p ON p.id = e.context_of"
        " LEFT JOIN entries pp ON pp.id = e.context_of_prior"
        " WHERE e.id = ANY($1::uuid[]) AND e.context_embedding IS NULL"
        "  AND (e.context_of_prior IS NULL OR pp.id IS NOT NULL)", ids))


async def fill_contexts(conn: asyncpg.Connection,
                        rows: list[tuple[UUID, np.ndarray, UUID, UUID | None]]) -> None:
    """(id, vector, context_of, context_of_prior): written only while the
    row still names the lines the vector was made of; a line forgotten
    since set its reference NULL, and the vector must not carry its words."""
    await conn.executemany(
        "UPDATE entries SET context_embedding = $2 WHERE id = $1 AND context_of = $3"
        " AND context_of_prior IS NOT DISTINCT FROM $4", rows)
