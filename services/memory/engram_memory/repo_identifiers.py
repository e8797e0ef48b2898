"""SQL of the identifier lift (engram_kit.ranking step 5)."""

from __future__ import annotations

from uuid import UUID

import asyncpg


async def identifiers_held(conn: asyncpg.Connection, identifiers: list[str],
                           ids: list[UUID]) -> dict[UUID, float]:
    """Per candidate, the fraction of the query's identifier lexemes
    (identifiers.py; the same tokens migration 0023 indexes) its text holds."""
    if not identifiers:
        return {}
    rows = await conn.fetch(
        "SELECT e.id, (SELECT count(*) FROM unnest(e.tsv) u WHERE u.lexeme = ANY($1::text[]))"
        "        ::float8 / cardinality($1::text[]) AS held"
        " FROM entries e WHERE e.id = ANY($2::uuid[])", identifiers, ids)
    return {r["id"]: r["held"] for r in rows if r["held"] > 0}
