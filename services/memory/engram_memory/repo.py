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

from .rows import (
    EntryRow,
    FullEntryRow,
    LinkRow,
    RetiredMatch,
    ServedEntryRow,
    VersionRow,
    select_list,
)

# Every nearest-neighbour query here limits inside a MATERIALIZED knn CTE and
# re-sorts outside it, so pgvector may return the HNSW candidates in relaxed
# order and keep scanning while filters (namespace by RLS, live, tags) reject
# rows. Set for every connection of the pool (kit.db `session_settings`), not
# with a SET LOCAL round trip per transaction.
VECTOR_SCAN = {"hnsw.iterative_scan": "relaxed_order"}

# What reads of entries select: the fields of the row types (rows.py).
ENTRY_COLUMNS = select_list(EntryRow)
SERVED_COLUMNS = select_list(ServedEntryRow)
FULL_COLUMNS = select_list(FullEntryRow)


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
    # migration 0020: the lines its context vector holds (filled later, 0021)
    context_of: UUID | None = None
    context_of_prior: UUID | None = None


@dataclass(frozen=True)
class Filters:
    tags: list[str]
    source: str
    since: datetime | None
    until: datetime | None
    episode: str = ""
    as_of: datetime | None = None  # what was live at that time
    include_history: bool = False  # also superseded/archived rows, labelled

    def relation(self, param: int) -> tuple[str, list]:
        """The set of rows a read may serve: live now (the `live_entries`
        view), live as of a time (`live_entries_at`), or with history."""
        if self.as_of is not None:
            return f"live_entries_at(${param})", [self.as_of]
        if self.include_history:
            return "(SELECT * FROM entries WHERE status IN ('live', 'superseded', 'archived'))", []
        return "live_entries", []

    def sql(self, first_param: int) -> tuple[str, list]:
        """WHERE fragment (prefixed with AND) and its parameters."""
        clauses, params = [], []
        n = first_param
        for clause, value in (("tags @> ${n}::text[]", self.tags), ("source = ${n}", self.source),
                              ("valid_from >= ${n}", self.since), ("valid_from < ${n}", self.until),
                              ("episode = ${n}", self.episode)):
            if value:
                clauses.append(clause.replace("{n}", str(n)))
                params.append(value)
                n += 1
        return "".join(f" AND {c}" for c in clauses), params


async def find_live_by_hash(conn: asyncpg.Connection, text_hash: str) -> EntryRow | None:
    row = await conn.fetchrow(
        f"SELECT {ENTRY_COLUMNS} FROM live_entries WHERE text_hash = $1 "
        "ORDER BY created_at LIMIT 1", text_hash,
    )
    return None if row is None else EntryRow.of(row)


async def confirm(conn: asyncpg.Connection, entry_id: UUID) -> None:
    await conn.execute(
        "UPDATE entries SET confirmations = confirmations + 1 WHERE id = $1", entry_id
    )


async def insert_entry(conn: asyncpg.Connection, e: NewEntry) -> EntryRow:
    """The entry and its version 1, in one statement (one round trip)."""
    row = await conn.fetchrow(
        "WITH e AS (INSERT INTO entries (id, namespace, text, text_hash, source, tags, origin,"
        " episode, writer_principal, client_id, session_id, valid_from, embedding,"
        " context_of, context_of_prior)"
        " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)"
        f" RETURNING {ENTRY_COLUMNS}),"
        " v AS (INSERT INTO entry_versions (namespace, entry_id, version, text, changed_by,"
        " reason) VALUES ($2, $1, 1, $3, $9, 'created'))"
        " SELECT * FROM e",
        e.id, e.namespace, e.text, e.text_hash, e.source, e.tags, e.origin, e.episode,
        e.writer_principal, e.client_id, e.session_id, e.valid_from, e.embedding,
        e.context_of, e.context_of_prior,
    )
    assert row is not None  # INSERT ... RETURNING yields the row
    return EntryRow.of(row)


async def dense_ranked(conn: asyncpg.Connection, embedding: np.ndarray, filters: Filters,
                       limit: int, context_weight: float = 0.0) -> list[tuple[UUID, float]]:
    """The nearest rows' ids and distances. With `context_weight` (migration 0020) the distance
    is (1 - w) x the own vector's + w x the context vector's (the own one's
    where a row has none), over the nearest rows of either index: two index
    scans, one round trip."""
    relation, rel_params = filters.relation(3)
    where, params = filters.sql(3 + len(rel_params))
    knn = ("SELECT id, {col} <=> $1 AS distance FROM " + relation + " e"
           " WHERE {col} IS NOT NULL" + where + " ORDER BY {col} <=> $1 LIMIT $2")
    if context_weight <= 0:
        sql = (f"WITH knn AS MATERIALIZED ({knn.format(col='embedding')})"
               " SELECT id, distance FROM knn ORDER BY distance")
        return ranked_pairs(await conn.fetch(sql, embedding, limit, *rel_params, *params))
    w = 3 + len(rel_params) + len(params)
    sql = (f"WITH own AS MATERIALIZED ({knn.format(col='embedding')}),"
           f" ctx AS MATERIALIZED ({knn.format(col='context_embedding')}),"
           " pool AS (SELECT id FROM own UNION SELECT id FROM ctx)"
           f" SELECT e.id, (1 - ${w}::float8) * (e.embedding <=> $1)"
           f"   + ${w}::float8 * coalesce(e.context_embedding <=> $1, e.embedding <=> $1)"
           "   AS distance"
           " FROM entries e JOIN pool USING (id) WHERE e.embedding IS NOT NULL"
           " ORDER BY 2, 1 LIMIT $2")
    return ranked_pairs(await conn.fetch(sql, embedding, limit, *rel_params, *params,
                                         context_weight))


def ranked_pairs(rows: list[asyncpg.Record]) -> list[tuple[UUID, float]]:
    """(id, distance or score): a ranked channel's rows, in order."""
    return [(r[0], r[1]) for r in rows]


@dataclass(frozen=True)
class TermLimits:
    """Which query terms the lexical channel uses (`lexical_terms`,
    migrations 0007, 0011 and 0013): none held by more than `max_df` of the rows,
    and, rarest first, only while their summed df stays within
    `match_budget` rows. The rarest term is always used. `k1` and `b` are
    BM25's saturation and length-norm weights."""
    max_df: float
    match_budget: int
    k1: float
    b: float

# The kept terms' postings (migration 0012: an index lookup under RLS),
# summed per entry: BM25 with tf=1, the length norm over distinct lexemes.
_SCORED_POSTINGS = (
    "WITH terms AS MATERIALIZED (SELECT lexeme, idf FROM lexical_terms($1, $3, $4) WHERE kept),"
    " tot AS (SELECT greatest(lexemes::float8 / greatest(docs, 1), 1) AS avgdl"
    "         FROM lexicon_totals),"
    " hits AS (SELECT p.entry_id, sum(t.idf) * ($5::float8 + 1) / (1 + $5::float8"
    "            * (1 - $6::float8 + $6::float8 * min(p.doc_len) / min(tot.avgdl))) AS score"
    "          FROM terms t JOIN entry_lexemes p ON p.lexeme = t.lexeme, tot"
    "          GROUP BY p.entry_id)"
)


async def lexical_ranked(conn: asyncpg.Connection, query: str, filters: Filters, limit: int,
                         terms: TermLimits) -> list[tuple[UUID, float]]:
    """BM25 over the query's kept terms. Term frequency is taken as 1
    (memories are short); the length norm counts distinct lexemes. Hits come
    sorted by score, so the served-set check probes entries only until
    `limit` rows pass (an incremental sort finishes the tie-break)."""
    relation, rel_params = filters.relation(7)
    where, params = filters.sql(7 + len(rel_params))
    return ranked_pairs(await conn.fetch(
        f"{_SCORED_POSTINGS}"
        " SELECT e.id, h.score FROM (SELECT * FROM hits ORDER BY score DESC) h"
        f" JOIN {relation} e ON e.id = h.entry_id WHERE true{where}"
        " ORDER BY h.score DESC, e.created_at DESC, e.id LIMIT $2",
        query, limit, terms.max_df, terms.match_budget, terms.k1, terms.b, *rel_params, *params,
    ))


async def lexical_terms(conn: asyncpg.Connection, query: str,
                        terms: TermLimits) -> list[tuple[str, int, bool]]:
    """(lexeme, rows holding it, kept) per query term."""
    rows = await conn.fetch("SELECT lexeme, df, kept FROM lexical_terms($1, $2, $3)",
                            query, terms.max_df, terms.match_budget)
    return [(r["lexeme"], r["df"], r["kept"]) for r in rows]


async def retired_matches(conn: asyncpg.Connection, query: str, terms: TermLimits,
                          limit: int) -> list[RetiredMatch]:
    """Superseded or archived rows the lexical channel would match (for explain)."""
    rows = await conn.fetch(
        f"{_SCORED_POSTINGS}"
        " SELECT e.id, e.text, e.status, e.superseded_by"
        " FROM (SELECT * FROM hits ORDER BY score DESC) h JOIN entries e ON e.id = h.entry_id"
        " WHERE e.status IN ('superseded', 'archived')"
        " ORDER BY h.score DESC, e.created_at DESC, e.id LIMIT $2",
        query, limit, terms.max_df, terms.match_budget, terms.k1, terms.b,
    )
    return [RetiredMatch.of(r) for r in rows]


async def fetch_by_ids(conn: asyncpg.Connection,
                       ids: list[UUID]) -> dict[UUID, ServedEntryRow]:
    """Rows already chosen by a ranked read (which applied the served set)."""
    rows = await conn.fetch(f"SELECT {SERVED_COLUMNS} FROM entries WHERE id = ANY($1::uuid[])",
                            ids)
    return {r["id"]: ServedEntryRow.of(r) for r in rows}


async def vector_column_dimension(conn: asyncpg.Connection) -> int | None:
    """pgvector stores a vector column's dimension as its type modifier
    (None: the column is missing)."""
    return await conn.fetchval(
        "SELECT atttypmod FROM pg_attribute"
        " WHERE attrelid = 'entries'::regclass AND attname = 'embedding'"
    )


# --- lifecycle --------------------------------------------------------------


async def nearest_live_texts(conn: asyncpg.Connection, embedding: np.ndarray,
                             limit: int) -> list[tuple[UUID, str, float]]:
    """(id, text, distance) of the nearest live entries."""
    rows = await conn.fetch(
        "WITH knn AS MATERIALIZED ("
        "  SELECT id, text, embedding <=> $1 AS distance FROM live_entries"
        "  WHERE embedding IS NOT NULL ORDER BY embedding <=> $1 LIMIT $2)"
        " SELECT id, text, distance FROM knn ORDER BY distance", embedding, limit,
    )
    return [(r["id"], r["text"], r["distance"]) for r in rows]


async def get_entry(conn: asyncpg.Connection, entry_id: UUID,
                    for_update: bool = False) -> FullEntryRow | None:
    lock = " FOR UPDATE" if for_update else ""
    row = await conn.fetchrow(f"SELECT {FULL_COLUMNS} FROM entries WHERE id = $1{lock}",
                              entry_id)
    return None if row is None else FullEntryRow.of(row)


async def retire_live(conn: asyncpg.Connection, entry_id: UUID, status: str,
                      superseded_by: UUID | None) -> str | None:
    """Retire a live entry atomically; returns its text (the pre-image), or
    None when it is no longer live (e.g. a concurrent write retired it)."""
    return await conn.fetchval(
        "UPDATE entries SET status = $2, superseded_by = $3, retired_at = now()"
        " WHERE id = $1 AND status = 'live' RETURNING text",
        entry_id, status, superseded_by,
    )


async def set_supersedes(conn: asyncpg.Connection, entry_id: UUID, old_id: UUID) -> None:
    await conn.execute("UPDATE entries SET supersedes = $2 WHERE id = $1", entry_id, old_id)


async def add_version(conn: asyncpg.Connection, namespace: str, entry_id: UUID, text: str,
                      changed_by: str, reason: str, status: str) -> None:
    await conn.execute(
        "INSERT INTO entry_versions (namespace, entry_id, version, text, changed_by, reason,"
        " status) SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4, $5, $6"
        " FROM entry_versions WHERE entry_id = $2",
        namespace, entry_id, text, changed_by, reason, status,
    )


async def versions(conn: asyncpg.Connection, entry_id: UUID) -> list[VersionRow]:
    rows = await conn.fetch(
        f"SELECT {select_list(VersionRow)} FROM entry_versions"
        " WHERE entry_id = $1 ORDER BY version", entry_id,
    )
    return [VersionRow.of(r) for r in rows]


async def link(conn: asyncpg.Connection, namespace: str, src: UUID, dst: UUID,
               kind: str) -> None:
    await conn.execute(
        "INSERT INTO entry_links (namespace, src, dst, kind) VALUES ($1, $2, $3, $4)"
        " ON CONFLICT DO NOTHING", namespace, src, dst, kind,
    )


async def links_of(conn: asyncpg.Connection, entry_id: UUID) -> list[LinkRow]:
    rows = await conn.fetch(
        f"SELECT {select_list(LinkRow)} FROM entry_links WHERE src = $1 OR dst = $1", entry_id
    )
    return [LinkRow.of(r) for r in rows]


async def contested_pairs(conn: asyncpg.Connection,
                          ids: list[UUID]) -> list[tuple[UUID, UUID]]:
    """(src, dst) of the contradiction links touching `ids` whose other side
    is still live."""
    rows = await conn.fetch(
        "SELECT l.src, l.dst FROM entry_links l"
        " JOIN live_entries a ON a.id = l.src JOIN live_entries b ON b.id = l.dst"
        " WHERE l.kind = 'contradicts' AND (l.src = ANY($1::uuid[]) OR l.dst = ANY($1::uuid[]))",
        ids,
    )
    return [(r["src"], r["dst"]) for r in rows]


async def reinforce(conn: asyncpg.Connection, entry_id: UUID) -> int | None:
    """The live entry's confirmations after this one (None: not live)."""
    return await conn.fetchval(
        "UPDATE entries SET confirmations = confirmations + 1, last_reinforced_at = now()"
        " WHERE id = $1 AND status = 'live' RETURNING confirmations", entry_id,
    )


async def recent_live(conn: asyncpg.Connection, filters: Filters,
                      limit: int) -> list[EntryRow]:
    where, params = filters.sql(2)
    rows = await conn.fetch(
        f"SELECT {ENTRY_COLUMNS} FROM live_entries e WHERE true{where}"
        " ORDER BY created_at DESC LIMIT $1", limit, *params,
    )
    return [EntryRow.of(r) for r in rows]
