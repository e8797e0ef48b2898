"""SQL of the time lift (engram_kit.ranking step 6)."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from .timewords import TEXT_PATTERN


async def naming_a_time(conn: asyncpg.Connection, ids: list[UUID]) -> set[UUID]:
    """The candidates whose text names a time (timewords.py: the pattern is
    bound as a parameter, so Postgres reads the one Python holds). Reads
    the candidates' own rows, so its cost is the candidates', whatever the
    namespace's size."""
    rows = await conn.fetch("SELECT id FROM entries WHERE id = ANY($1::uuid[]) AND text ~* $2",
                            ids, TEXT_PATTERN)
    return {r["id"] for r in rows}
