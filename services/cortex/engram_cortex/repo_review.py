"""The review queue's open items as one keyset-paged listing: open conflicts,
proposed root tags and parked contenders, ordered by (created_at, key)."""

from __future__ import annotations

import uuid
from datetime import datetime

import asyncpg

from .repo_conflicts import CONFLICT_COLUMNS
from .repo_tags import TAG_COLUMNS
from .rows import ConflictRow, ContenderRow, ReviewKeyRow, TagRow, select_list

# One row per open item; the "live" rules are the same as each kind's own listing.
# $1: kind ('' for every kind), $2: ILIKE pattern ('' for no text filter).
_ITEMS = """
  SELECT 'conflict' AS kind, c.id::text AS key, c.opened_at AS created_at
    FROM conflicts c JOIN facts a ON a.id = c.fact_a JOIN facts b ON b.id = c.fact_b
   WHERE c.status = 'open' AND $1 IN ('', 'conflict')
     AND ($2 = '' OR concat_ws(' ', a.entity, a.attribute, a.value, b.value) ILIKE $2)
  UNION ALL
  SELECT 'root_tag', 'tag:' || t.name, t.created_at FROM tags t
   WHERE t.status = 'proposed' AND $1 IN ('', 'root_tag')
     AND ($2 = '' OR concat_ws(' ', t.name, t.reason) ILIKE $2)
  UNION ALL
  SELECT 'contender', 'contender:' || p.id::text, p.recorded_at FROM facts p
   WHERE p.verdict = 'parked' AND p.retired_at IS NULL AND $1 IN ('', 'contender')
     AND ($2 = '' OR concat_ws(' ', p.entity, p.attribute, p.value) ILIKE $2)
"""
_KEY_COLUMNS = select_list(ReviewKeyRow)


def like_pattern(q: str) -> str:
    """An ILIKE pattern matching q anywhere, its own wildcards taken literally."""
    if not q:
        return ""
    escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def page(conn: asyncpg.Connection, kind: str, pattern: str,
               after: tuple[datetime, str] | None, limit: int) -> list[ReviewKeyRow]:
    """Up to limit items after the cursor position, oldest first."""
    if after is None:
        return ReviewKeyRow.all(await conn.fetch(
            f"SELECT {_KEY_COLUMNS} FROM ({_ITEMS}) i ORDER BY created_at, key LIMIT $3",
            kind, pattern, limit))
    return ReviewKeyRow.all(await conn.fetch(
        f"SELECT {_KEY_COLUMNS} FROM ({_ITEMS}) i WHERE (created_at, key) > "
        "($4::timestamptz, $5::text) ORDER BY created_at, key LIMIT $3",
        kind, pattern, limit, after[0], after[1]))


async def total(conn: asyncpg.Connection, kind: str, pattern: str) -> int:
    return int(await conn.fetchval(f"SELECT count(*) FROM ({_ITEMS}) i", kind, pattern) or 0)


async def conflicts_by_id(conn: asyncpg.Connection,
                          ids: list[uuid.UUID]) -> list[ConflictRow]:
    return ConflictRow.all(await conn.fetch(
        f"SELECT {CONFLICT_COLUMNS} FROM conflicts WHERE id = ANY($1::uuid[])", ids))


async def tags_by_name(conn: asyncpg.Connection, names: list[str]) -> list[TagRow]:
    return TagRow.all(await conn.fetch(
        f"SELECT {TAG_COLUMNS} FROM tags WHERE name = ANY($1::text[])", names))


# A contender's fields, and its slot's current value(s).
CONTENDER_COLUMNS = select_list(ContenderRow, "p", {"current_value": """(
    SELECT string_agg(c.value, ' | ') FROM live_facts c
     WHERE c.entity = p.entity AND c.attribute = p.attribute
       AND c.verdict IN ('active', 'contested')) AS current_value"""})


async def contenders_by_id(conn: asyncpg.Connection,
                           ids: list[uuid.UUID]) -> list[ContenderRow]:
    """Parked contenders with the slot's current value."""
    return ContenderRow.all(await conn.fetch(
        f"SELECT {CONTENDER_COLUMNS} FROM facts p WHERE p.id = ANY($1::uuid[])", ids))
