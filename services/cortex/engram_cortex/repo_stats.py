"""SQL for memory_stats' cortex part; the caller owns the tenant transaction.
Each count reads an index led by namespace (RLS fixes the namespace)."""

from __future__ import annotations

import asyncpg

from engram_kit.db import fetchrow_one

from .rows import FactCountRow, StatTotalsRow, select_list

_FACT_COUNT_COLUMNS = select_list(FactCountRow, expressions={"n": "count(*) AS n"})
_TOTALS_COLUMNS = select_list(StatTotalsRow, expressions={
    "conflicts": "(SELECT count(*) FROM conflicts WHERE status = 'open') AS conflicts",
    "tags": "(SELECT count(*) FROM tags WHERE status = 'proposed') AS tags",
    "lessons": "(SELECT count(*) FROM lessons WHERE retired_at IS NULL) AS lessons",
})


async def facts_by_kind(conn: asyncpg.Connection) -> list[FactCountRow]:
    return FactCountRow.all(await conn.fetch(
        f"SELECT {_FACT_COUNT_COLUMNS} FROM facts GROUP BY kind, verdict ORDER BY kind, verdict"))


async def totals(conn: asyncpg.Connection) -> StatTotalsRow:
    return StatTotalsRow.of(await fetchrow_one(conn, f"SELECT {_TOTALS_COLUMNS}"))
