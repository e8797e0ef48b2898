"""SQL for the tag registry, its aliases and the review of root tags. The
caller owns the transaction."""

from __future__ import annotations

import asyncpg

from .rows import TagRow, select_list

TAG_COLUMNS = select_list(TagRow)


async def alias_target(conn: asyncpg.Connection, alias: str) -> str | None:
    return await conn.fetchval("SELECT tag FROM tag_aliases WHERE alias = $1", alias)


async def is_approved(conn: asyncpg.Connection, name: str) -> bool:
    return bool(await conn.fetchval(
        "SELECT 1 FROM tags WHERE name = $1 AND status = 'approved'", name))


async def exists(conn: asyncpg.Connection, name: str) -> bool:
    return bool(await conn.fetchval("SELECT 1 FROM tags WHERE name = $1", name))


async def approved_leaves(conn: asyncpg.Connection, leaf: str) -> list[str]:
    """Approved dotted tags whose last segment is `leaf`."""
    return [r["name"] for r in await conn.fetch(
        "SELECT name FROM tags WHERE status = 'approved' AND name LIKE '%.' || $1", leaf)]


async def mint_leaf(conn: asyncpg.Connection, ns: str, tag: str, parent: str,
                    principal: str) -> None:
    await conn.execute(
        """INSERT INTO tags (namespace, name, parent, status, created_by, reason)
           VALUES ($1, $2, $3, 'approved', $4, 'leaf minted under an approved parent')
           ON CONFLICT DO NOTHING""", ns, tag, parent, principal)


async def get(conn: asyncpg.Connection, name: str, *,
              for_update: bool = False) -> TagRow | None:
    sql = f"SELECT {TAG_COLUMNS} FROM tags WHERE name = $1" + (
        " FOR UPDATE" if for_update else "")
    row = await conn.fetchrow(sql, name)
    return TagRow.of(row) if row is not None else None


async def propose_root(conn: asyncpg.Connection, ns: str, tag: str, reason: str,
                       principal: str) -> None:
    await conn.execute(
        """INSERT INTO tags (namespace, name, parent, status, reason, created_by)
           VALUES ($1, $2, NULL, 'proposed', $3, $4)""", ns, tag, reason, principal)


async def insert_alias(conn: asyncpg.Connection, ns: str, alias: str, tag: str,
                       principal: str) -> None:
    await conn.execute(
        """INSERT INTO tag_aliases (namespace, alias, tag, created_by)
           VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING""", ns, alias, tag, principal)


async def proposed(conn: asyncpg.Connection) -> list[TagRow]:
    return TagRow.all(await conn.fetch(
        f"SELECT {TAG_COLUMNS} FROM tags WHERE status = 'proposed' ORDER BY created_at"))


async def decide(conn: asyncpg.Connection, name: str, status: str, principal: str,
                 reasoning: str) -> None:
    await conn.execute(
        """UPDATE tags SET status = $2, decided_by = $3, decided_at = clock_timestamp(),
                  reason = $4 WHERE name = $1""", name, status, principal, reasoning)
