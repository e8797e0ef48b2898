"""SQL for principals' toolset tiers. The caller owns the transaction."""

from __future__ import annotations

import asyncpg


async def tier(conn: asyncpg.Connection, namespace: str, principal: str) -> int:
    """The stored tier, 0 when none was set."""
    value = await conn.fetchval(
        "SELECT tier FROM toolsets WHERE namespace = $1 AND principal = $2",
        namespace, principal)
    return int(value or 0)


async def set_tier(conn: asyncpg.Connection, namespace: str, principal: str,
                   value: int) -> None:
    await conn.execute(
        """INSERT INTO toolsets (namespace, principal, tier) VALUES ($1, $2, $3)
           ON CONFLICT (namespace, principal)
           DO UPDATE SET tier = EXCLUDED.tier, updated_at = now()
           WHERE toolsets.tier IS DISTINCT FROM EXCLUDED.tier""",
        namespace, principal, value)
