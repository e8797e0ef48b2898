"""SQL for memory_stats' cortex part; the caller owns the tenant transaction.
Each count reads an index led by namespace (RLS fixes the namespace)."""

from __future__ import annotations

import asyncpg

from engram_kit.db import fetchrow_one


async def facts_by_kind(conn: asyncpg.Connection) -> list[asyncpg.Record]:
    return await conn.fetch("SELECT kind, verdict, count(*) AS n FROM facts"
                            " GROUP BY kind, verdict ORDER BY kind, verdict")


async def totals(conn: asyncpg.Connection) -> asyncpg.Record:
    return await fetchrow_one(conn, """
        SELECT (SELECT count(*) FROM conflicts WHERE status = 'open') AS conflicts,
               (SELECT count(*) FROM tags WHERE status = 'proposed') AS tags,
               (SELECT count(*) FROM lessons WHERE retired_at IS NULL) AS lessons""")
