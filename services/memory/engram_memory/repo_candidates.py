"""What fusion's lifts (engram_kit.ranking steps 2-6) read of a search's
candidates, in one statement: on a small store each round trip is a
visible share of a search, and these reads all touch only the candidates'
own rows, so their cost is the candidates', whatever the namespace's size.

- the line before each candidate in its episode (the context lift) and its
  episode (the episode lift). The line is the one the write named as the
  first line of its context vector (`context_of`, migration 0020: the live
  line written just before it, same episode); a row that names none (the
  first line of an episode, one whose line was forgotten, one written
  before migration 0020) is looked up by one backward step of the
  (namespace, episode, created_at) index (migration 0022);
- the fraction of the query's terms too common for the lexical channel
  (not kept) that it holds (step 4);
- the fraction of the query's identifier lexemes it holds (identifiers.py;
  the same tokens migration 0023 indexes; step 5);
- whether its text names a time (timewords.py: the pattern is bound as a
  parameter, so Postgres reads the one Python holds; step 6).
A lift that is off reads nothing: its column is a constant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import asyncpg

from .repo import TermLimits
from .timewords import TEXT_PATTERN

PREVIOUS_LINE = (
    "(SELECT p.id FROM entries p WHERE p.episode = c.episode"
    " AND p.created_at < c.created_at ORDER BY p.created_at DESC LIMIT 1)")


@dataclass(frozen=True)
class LiftReads:
    """Which lifts are on for this query."""

    common_terms: bool
    identifiers: list[str]  # the query's identifier lexemes; empty: off
    time: bool  # a question about time


@dataclass
class CandidateFacts:
    previous: dict[UUID, UUID] = field(default_factory=dict)  # entry -> the line before it
    episode: dict[UUID, str] = field(default_factory=dict)
    held: dict[UUID, float] = field(default_factory=dict)  # common terms held (> 0 only)
    exact: dict[UUID, float] = field(default_factory=dict)  # identifiers held (> 0 only)
    timed: set[UUID] = field(default_factory=set)


def candidate_sql(query: str, terms: TermLimits, reads: LiftReads) -> tuple[str, list[Any]]:
    """The statement and its parameters after $1 (the candidate ids)."""
    params: list[Any] = []

    def bind(value: Any) -> str:
        params.append(value)
        return f"${len(params) + 1}"

    head, source = "", "entries c"
    held = exact = "0::float8"
    timed = "false"
    if reads.common_terms:
        head = ("WITH common AS (SELECT array_agg(lexeme) AS lexemes, count(*) AS n"
                f" FROM lexical_terms({bind(query)}, {bind(terms.max_df)},"
                f" {bind(terms.match_budget)}) WHERE NOT kept) ")
        source += ", common"
        held = ("CASE WHEN common.n > 0 THEN (SELECT count(*) FROM unnest(c.tsv) u"
                " WHERE u.lexeme = ANY(common.lexemes))::float8 / common.n ELSE 0 END")
    if reads.identifiers:
        ids = bind(reads.identifiers)
        exact = (f"(SELECT count(*) FROM unnest(c.tsv) u WHERE u.lexeme = ANY({ids}::text[]))"
                 f"::float8 / cardinality({ids}::text[])")
    if reads.time:
        timed = f"c.text ~* {bind(TEXT_PATTERN)}"
    sql = (f"{head}SELECT c.id, c.episode,"
           f" CASE WHEN c.episode IS NOT NULL THEN coalesce(c.context_of, {PREVIOUS_LINE})"
           f" END AS prev, {held} AS held, {exact} AS exact, {timed} AS timed"
           f" FROM {source} WHERE c.id = ANY($1::uuid[])")
    return sql, params


async def candidate_facts(conn: asyncpg.Connection, ids: list[UUID], query: str,
                          terms: TermLimits, reads: LiftReads) -> CandidateFacts:
    if not ids:
        return CandidateFacts()
    sql, params = candidate_sql(query, terms, reads)
    facts = CandidateFacts()
    for r in await conn.fetch(sql, ids, *params):
        key = r["id"]
        if r["episode"] is not None:
            facts.episode[key] = r["episode"]
        if r["prev"] is not None:
            facts.previous[key] = r["prev"]
        if r["held"] > 0:
            facts.held[key] = r["held"]
        if r["exact"] > 0:
            facts.exact[key] = r["exact"]
        if r["timed"]:
            facts.timed.add(key)
    return facts
