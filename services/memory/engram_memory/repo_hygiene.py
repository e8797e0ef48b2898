"""SQL for keeping the bank tidy: the consolidation scan and the namespace's
counts. The caller owns the (tenant) transaction."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from engram_kit.db import fetchrow_one

from .repo import ENTRY_COLUMNS
from .rows import EntryRow, EntryState, select_list
from .rows_documents import Counts, TableSize

# Tables whose size memory_stats apportions to a namespace by its row share.
SIZED_TABLES = ("entries", "documents", "document_chunks")


async def newest_embedded_live(conn: asyncpg.Connection,
                               limit: int) -> list[tuple[EntryRow, object]]:
    """The newest live entries that have a vector (the ns/status/created index),
    each with its vector as the pgvector codec decoded it (not copied)."""
    rows = await conn.fetch(
        f"SELECT {ENTRY_COLUMNS}, embedding FROM live_entries WHERE embedding IS NOT NULL"
        " ORDER BY created_at DESC LIMIT $1", limit)
    return [(EntryRow.of({k: v for k, v in r.items() if k != "embedding"}), r["embedding"])
            for r in rows]


async def lock_entries(conn: asyncpg.Connection, ids: list[UUID]) -> list[EntryState]:
    """The named entries, locked, in a stable order (no deadlock between two
    consolidations of overlapping sets)."""
    rows = await conn.fetch(
        f"SELECT {select_list(EntryState)} FROM entries WHERE id = ANY($1::uuid[])"
        " ORDER BY id FOR UPDATE", ids)
    return [EntryState.of(r) for r in rows]


async def counts(conn: asyncpg.Connection) -> Counts:
    """Exact counts, each on an index led by namespace (RLS fixes it)."""
    return Counts.of(await fetchrow_one(conn, """
        SELECT
          (SELECT count(*) FROM entries WHERE status = 'live') AS live,
          (SELECT count(*) FROM entries WHERE status = 'archived') AS archived,
          (SELECT count(*) FROM entries WHERE status = 'superseded') AS superseded,
          (SELECT count(*) FROM entries WHERE status = 'live' AND embedding IS NULL)
            AS unembedded,
          (SELECT count(*) FROM documents) AS documents,
          (SELECT count(*) FROM document_chunks) AS chunks,
          (SELECT count(*) FROM tombstones) AS tombstones"""))


async def table_sizes(conn: asyncpg.Connection) -> list[TableSize]:
    """Each sized table's bytes (with indexes and TOAST) and the planner's row
    estimate: catalogue reads, no scan."""
    return TableSize.all(await conn.fetch(
        "SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes,"
        " greatest(c.reltuples, 0)::bigint AS rows FROM pg_class c"
        " WHERE c.oid = ANY(ARRAY(SELECT to_regclass(t) FROM unnest($1::text[]) t))",
        list(SIZED_TABLES)))
