"""Hybrid search shared by facts, world facts and lessons: dense neighbours
above a cosine floor, then full-text matches, best first. The caller owns
the transaction."""

from __future__ import annotations

import asyncpg
import numpy as np


async def ranked(conn: asyncpg.Connection, view: str, text_sql: str, query: str,
                 vector: np.ndarray | None, top_k: int,
                 min_cosine: float) -> list[asyncpg.Record]:
    """Dense neighbours above `min_cosine`, then full-text matches, best first.
    `view` and `text_sql` are constants of the callers, never user input."""
    picked: dict = {}
    if vector is not None:
        for r in await conn.fetch(
                f"SELECT *, 1 - (embedding <=> $1) AS score FROM {view} "
                "WHERE embedding IS NOT NULL ORDER BY embedding <=> $1 LIMIT $2",
                vector, top_k * 2):
            if r["score"] >= min_cosine:
                picked.setdefault(r["id"], r)
    for r in await conn.fetch(
            f"SELECT *, ts_rank(to_tsvector('simple', {text_sql}), q) AS score "
            f"FROM {view}, websearch_to_tsquery('simple', $1) q "
            f"WHERE to_tsvector('simple', {text_sql}) @@ q ORDER BY score DESC LIMIT $2",
            query, top_k * 2):
        picked.setdefault(r["id"], r)
    return sorted(picked.values(), key=lambda r: -float(r["score"]))[:top_k]


async def holds_searchable(conn: asyncpg.Connection, namespace: str) -> bool:
    """Whether the namespace has any fact or live world fact to search: two
    probes of the namespace-led slot indexes, no scan (RLS scopes them too).
    Read per call, so the first fact to land is searched at once, on every
    replica."""
    return bool(await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM facts WHERE namespace = $1) "
        "OR EXISTS (SELECT 1 FROM world_facts WHERE namespace = $1 AND retired_at IS NULL)",
        namespace))
