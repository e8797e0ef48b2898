"""SQL for principals' toolset tiers. The caller owns the transaction (a
principal transaction: RLS shows only that principal's row)."""

from __future__ import annotations

import asyncpg


async def tier(conn: asyncpg.Connection, principal: str) -> int:
    """The stored tier, 0 when none was set."""
    value = await conn.fetchval("SELECT tier FROM toolsets WHERE principal = $1", principal)
    return int(value or 0)


async def set_tier(conn: asyncpg.Connection, principal: str, value: int) -> None:
    await conn.execute(
        """INSERT INTO toolsets (principal, tier) VALUES ($1, $2)
           ON CONFLICT (principal)
           DO UPDATE SET tier = EXCLUDED.tier, updated_at = now()
           WHERE toolsets.tier IS DISTINCT FROM EXCLUDED.tier""",
        principal, value)
