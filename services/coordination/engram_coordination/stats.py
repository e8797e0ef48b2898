"""The board's counts for memory_stats: a read that writes nothing (no
registration, no heartbeat)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx

from . import repo_sweep
from .rows import BoardCounts
from .settings import CoordinationSettings


async def board_counts(pool: asyncpg.Pool, settings: CoordinationSettings,
                       ctx: CallerContext) -> BoardCounts:
    since = datetime.now(UTC) - timedelta(seconds=settings.active_window_s)
    async with tenant_tx(pool, ctx.require_namespace()) as conn:
        return await repo_sweep.counts(conn, since)
