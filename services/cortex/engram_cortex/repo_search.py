"""Hybrid search shared by facts, world facts and lessons: dense neighbours
above a cosine floor and full-text matches, fused by the kit's reciprocal
rank fusion (engram_kit.ranking, the maths memory ranks with). The caller
owns the transaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import asyncpg
import numpy as np

from engram_kit.ranking import Channel, reciprocal_rank_fusion
from engram_kit.rows import Row

from .repo import FACT_COLUMNS
from .repo_lessons import LESSON_COLUMNS
from .repo_world import WORLD_COLUMNS
from .rows import RankedFactRow, RankedLessonRow, RankedWorldFactRow
from .settings import CortexSettings

# The text the facts' full-text index covers (migration 0002).
FACT_TEXT = "entity || ' ' || replace(attribute, '_', ' ') || ' ' || value"
WORLD_TEXT = FACT_TEXT  # a world fact's words: the same columns
LESSON_TEXT = "task || ' ' || text"

R = TypeVar("R", bound=Row)


@dataclass(frozen=True)
class Hybrid:
    """How one search fuses its channels (CortexSettings.search_*)."""
    min_cosine: float
    rrf_k: int
    lexical_weight: float


def hybrid(s: CortexSettings) -> Hybrid:
    return Hybrid(s.search_min_cosine, s.search_rrf_k, s.search_lexical_weight)


async def ranked(conn: asyncpg.Connection, row_type: type[R], view: str, text_sql: str,
                 query: str, vector: np.ndarray | None, top_k: int, how: Hybrid,
                 columns: str) -> list[R]:
    """The rows either channel found, best fused first, as `row_type` (its
    fields: `columns`, then `score`). A row keeps the score of the channel
    that found it (cosine when dense did, else the text rank): clients read
    it as the match's strength, recall as a seed's confidence. `view`,
    `text_sql` and `columns` (what a row carries, besides its score) are
    constants of the callers, never user input."""
    dense = [] if vector is None else [r for r in await conn.fetch(
        f"SELECT {columns}, 1 - (embedding <=> $1) AS score FROM {view} "
        "WHERE embedding IS NOT NULL ORDER BY embedding <=> $1 LIMIT $2",
        vector, top_k * 2) if r["score"] >= how.min_cosine]
    lexical = await conn.fetch(
        f"SELECT {columns}, ts_rank(to_tsvector('simple', {text_sql}), q) AS score "
        f"FROM {view}, websearch_to_tsquery('simple', $1) q "
        f"WHERE to_tsvector('simple', {text_sql}) @@ q ORDER BY score DESC LIMIT $2",
        query, top_k * 2)
    rows = {r["id"]: r for r in lexical} | {r["id"]: r for r in dense}
    fused = reciprocal_rank_fusion({Channel.DENSE: [r["id"] for r in dense],
                                    Channel.LEXICAL: [r["id"] for r in lexical]},
                                   how.rrf_k, {Channel.LEXICAL: how.lexical_weight})
    return [row_type.of(rows[f.key]) for f in fused[:top_k]]


async def ranked_facts(conn: asyncpg.Connection, query: str, vector: np.ndarray | None,
                       top_k: int, how: Hybrid) -> list[RankedFactRow]:
    """Live facts either channel found, best fused first, with their scores."""
    return await ranked(conn, RankedFactRow, "live_facts", FACT_TEXT, query, vector,
                        top_k, how, FACT_COLUMNS)


async def ranked_world(conn: asyncpg.Connection, query: str, vector: np.ndarray | None,
                       top_k: int, how: Hybrid) -> list[RankedWorldFactRow]:
    """Live world facts either channel found, best fused first, with their scores."""
    return await ranked(conn, RankedWorldFactRow, "live_world_facts", WORLD_TEXT, query,
                        vector, top_k, how, WORLD_COLUMNS)


async def ranked_lessons(conn: asyncpg.Connection, query: str, vector: np.ndarray | None,
                         top_k: int, how: Hybrid) -> list[RankedLessonRow]:
    """Live lessons either channel found, best fused first, with their scores."""
    return await ranked(conn, RankedLessonRow, "live_lessons", LESSON_TEXT, query,
                        vector, top_k, how, LESSON_COLUMNS)


async def holds_searchable(conn: asyncpg.Connection, namespace: str) -> bool:
    """Whether the namespace has any fact or live world fact to search: two
    probes of the namespace-led slot indexes, no scan (RLS scopes them too).
    Read per call, so the first fact to land is searched at once, on every
    replica."""
    return bool(await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM facts WHERE namespace = $1) "
        "OR EXISTS (SELECT 1 FROM world_facts WHERE namespace = $1 AND retired_at IS NULL)",
        namespace))
