"""All SQL of the memory service. Functions take a connection; the caller
owns the transaction (opened with kit.db.tenant_tx, which scopes RLS).

Every read of current entries goes through the `live_entries` view: the one
definition of "live" for this store."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg
import numpy as np

ENTRY_COLUMNS = (
    "id, text, source, tags, origin, episode, status, created_at, valid_from, "
    "writer_principal, (embedding IS NOT NULL) AS embedded"
)


@dataclass(frozen=True)
class NewEntry:
    id: UUID
    namespace: str
    text: str
    text_hash: str
    source: str
    tags: list[str]
    origin: str
    episode: str | None
    writer_principal: str
    client_id: str
    session_id: str
    valid_from: datetime
    embedding: np.ndarray | None


@dataclass(frozen=True)
class Filters:
    tags: list[str]
    source: str
    since: datetime | None
    until: datetime | None

    def sql(self, first_param: int) -> tuple[str, list]:
        """WHERE fragment (prefixed with AND) and its parameters."""
        clauses, params = [], []
        n = first_param
        if self.tags:
            clauses.append(f"tags @> ${n}::text[]")
            params.append(self.tags)
            n += 1
        if self.source:
            clauses.append(f"source = ${n}")
            params.append(self.source)
            n += 1
        if self.since:
            clauses.append(f"valid_from >= ${n}")
            params.append(self.since)
            n += 1
        if self.until:
            clauses.append(f"valid_from < ${n}")
            params.append(self.until)
            n += 1
        return "".join(f" AND {c}" for c in clauses), params


async def find_live_by_hash(conn: asyncpg.Connection, text_hash: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {ENTRY_COLUMNS} FROM live_entries WHERE text_hash = $1 "
        "ORDER BY created_at LIMIT 1", text_hash,
    )


async def nearest_live(conn: asyncpg.Connection, embedding: np.ndarray,
                       limit: int) -> list[asyncpg.Record]:
    """kNN over live entries of the transaction's namespace (RLS restricts
    first; iterative HNSW scan keeps going until `limit` rows pass)."""
    await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
    return await conn.fetch(
        "WITH knn AS MATERIALIZED ("
        "  SELECT id, embedding <=> $1 AS distance FROM live_entries"
        "  WHERE embedding IS NOT NULL ORDER BY embedding <=> $1 LIMIT $2)"
        " SELECT id, distance FROM knn ORDER BY distance", embedding, limit,
    )


async def confirm(conn: asyncpg.Connection, entry_id: UUID) -> None:
    await conn.execute(
        "UPDATE entries SET confirmations = confirmations + 1 WHERE id = $1", entry_id
    )


async def insert_entry(conn: asyncpg.Connection, e: NewEntry) -> asyncpg.Record:
    row = await conn.fetchrow(
        "INSERT INTO entries (id, namespace, text, text_hash, source, tags, origin, episode,"
        " writer_principal, client_id, session_id, valid_from, embedding)"
        " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)"
        f" RETURNING {ENTRY_COLUMNS}",
        e.id, e.namespace, e.text, e.text_hash, e.source, e.tags, e.origin, e.episode,
        e.writer_principal, e.client_id, e.session_id, e.valid_from, e.embedding,
    )
    await conn.execute(
        "INSERT INTO entry_versions (namespace, entry_id, version, text, changed_by, reason)"
        " VALUES ($1, $2, 1, $3, $4, 'created')",
        e.namespace, e.id, e.text, e.writer_principal,
    )
    return row


async def insert_outbox(conn: asyncpg.Connection, event_id: UUID, namespace: str,
                        subject: str, payload: bytes) -> None:
    await conn.execute(
        "INSERT INTO outbox (id, namespace, subject, payload) VALUES ($1, $2, $3, $4)",
        event_id, namespace, subject, payload,
    )


async def dense_ranked(conn: asyncpg.Connection, embedding: np.ndarray, filters: Filters,
                       limit: int) -> list[asyncpg.Record]:
    where, params = filters.sql(3)
    await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
    return await conn.fetch(
        "WITH knn AS MATERIALIZED ("
        "  SELECT id, embedding <=> $1 AS distance FROM live_entries"
        f"  WHERE embedding IS NOT NULL{where} ORDER BY embedding <=> $1 LIMIT $2)"
        " SELECT id, distance FROM knn ORDER BY distance",
        embedding, limit, *params,
    )


async def lexical_ranked(conn: asyncpg.Connection, query: str, filters: Filters,
                         limit: int) -> list[asyncpg.Record]:
    """Full-text match with OR semantics over the query's terms."""
    where, params = filters.sql(3)
    return await conn.fetch(
        "WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', $1)::text, ' & ', ' | '),"
        " '')::tsquery AS tsq)"
        " SELECT e.id, ts_rank_cd(e.tsv, q.tsq) AS score FROM live_entries e, q"
        f" WHERE q.tsq IS NOT NULL AND e.tsv @@ q.tsq{where}"
        " ORDER BY score DESC, e.created_at DESC LIMIT $2",
        query, limit, *params,
    )


async def fetch_live(conn: asyncpg.Connection, ids: list[UUID]) -> dict[UUID, asyncpg.Record]:
    rows = await conn.fetch(
        f"SELECT {ENTRY_COLUMNS} FROM live_entries WHERE id = ANY($1::uuid[])", ids
    )
    return {r["id"]: r for r in rows}


async def enqueue_embedding(conn: asyncpg.Connection, namespace: str, entry_id: UUID) -> None:
    await conn.execute(
        "INSERT INTO embedding_queue (entry_id, namespace) VALUES ($1, $2)"
        " ON CONFLICT (entry_id) DO NOTHING", entry_id, namespace,
    )


async def embedding_backlog(conn: asyncpg.Connection, limit: int) -> list[asyncpg.Record]:
    """Oldest queued entries across namespaces (only inside the sweep duty)."""
    return await conn.fetch(
        "SELECT namespace, entry_id FROM embedding_queue ORDER BY enqueued_at LIMIT $1", limit
    )


async def embedding_backlog_size(conn: asyncpg.Connection) -> int:
    return await conn.fetchval("SELECT count(*) FROM embedding_queue")


async def texts_to_embed(conn: asyncpg.Connection, ids: list[UUID]) -> list[asyncpg.Record]:
    return await conn.fetch(
        "SELECT id, text FROM entries WHERE id = ANY($1::uuid[]) AND embedding IS NULL", ids
    )


async def set_embeddings(conn: asyncpg.Connection, rows: list[tuple[UUID, np.ndarray]]) -> None:
    await conn.executemany("UPDATE entries SET embedding = $2 WHERE id = $1", rows)


async def dequeue_embeddings(conn: asyncpg.Connection, ids: list[UUID]) -> None:
    await conn.execute("DELETE FROM embedding_queue WHERE entry_id = ANY($1::uuid[])", ids)


async def vector_column_dimension(conn: asyncpg.Connection) -> int:
    """pgvector stores a vector column's dimension as its type modifier."""
    return await conn.fetchval(
        "SELECT atttypmod FROM pg_attribute"
        " WHERE attrelid = 'entries'::regclass AND attname = 'embedding'"
    )
