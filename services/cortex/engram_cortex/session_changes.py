"""What changed, since a cursor, about the facts a session was served: the
prompt hook's note. Reads are recorded as they are served (never under a
read-only grant: a read grant writes nothing); asking for changes writes
nothing."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument

from . import repo_session as repo
from .rows import FactRow, SessionChangeRow
from .settings import CortexSettings


async def record_served(conn: asyncpg.Connection, ctx: CallerContext,
                        rows: Sequence[FactRow], s: CortexSettings) -> None:
    if not rows or not ctx.session_id or ctx.read_only:
        return
    ids: list[uuid.UUID] = list(dict.fromkeys(r.id for r in rows))
    await repo.record(conn, ctx.namespace, ctx.session_id, ids[: s.session_reads_max],
                      s.session_reads_max, s.session_reads_keep_s)


@dataclass(frozen=True)
class Changes:
    facts: list[SessionChangeRow]
    conflicts_opened: int
    cursor: datetime


def parse_cursor(since: str) -> datetime | None:
    if not since.strip():
        return None
    try:
        at = datetime.fromisoformat(since.strip())
    except ValueError:
        raise InvalidArgument("since must be a cursor from an earlier session_changes reply "
                              "(an ISO 8601 time with its offset)", field="since") from None
    if at.tzinfo is None:
        raise InvalidArgument("since needs its UTC offset", field="since")
    return at


async def since(pool: asyncpg.Pool, ctx: CallerContext, cursor: str) -> Changes:
    """Changes after `cursor`; an empty cursor returns none and a fresh cursor."""
    ns = ctx.require_namespace()
    at = parse_cursor(cursor)
    async with tenant_tx(pool, ns) as conn:
        now = await repo.now(conn)
        if at is None or not ctx.session_id:
            return Changes([], 0, now)
        facts = [*await repo.superseded(conn, ctx.session_id, at),
                 *await repo.contested(conn, ctx.session_id, at)]
        return Changes(facts, await repo.conflicts_opened(conn, at), now)
