"""Read paths: fact_get (now or as of a world time), history, search. Every
read goes through `live_facts` or states plainly that it reads history."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import asyncpg
import numpy as np

from engram.v1.common_pb2 import QueryVector
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.vocab import Verdict

from . import repo, repo_freshness
from . import repo_conflicts as conflicts
from .normalise import attribute_name, entity_name
from .repo_search import holds_searchable, hybrid, ranked_facts
from .rows import FactRow
from .search_args import briefing_limit, check_query
from .session_changes import record_served
from .settings import CortexSettings

# What the session-start briefing shows of the facts, in this order.
BRIEFING_KINDS = ["RULE", "DECISION", "PREFERENCE"]
STATE_KINDS = ["STATE"]


@dataclass(frozen=True)
class Served:
    """Rows with the open conflict of each contested one, and why each fact
    whose evidence changed since its last verification should be checked."""

    rows: list[FactRow]  # RankedFactRow where a search found them
    conflict_of: dict[uuid.UUID, uuid.UUID]
    re_verify: dict[uuid.UUID, str] = field(default_factory=dict)


async def serve(conn: asyncpg.Connection, rows: Sequence[FactRow]) -> Served:
    return Served(list(rows), await conflicts.open_for(conn, [r.id for r in rows]),
                  await repo_freshness.changed_evidence(conn, rows))


@dataclass(frozen=True)
class SlotAnswer:
    current: Served
    contenders: Served
    set_valued: bool
    entity: str
    attribute: str


class FactReader:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: CortexSettings) -> None:
        self._pool = pool
        self._embedder = embedder
        self._s = settings

    async def _served(self, conn: asyncpg.Connection, rows: Sequence[FactRow]) -> Served:
        return await serve(conn, rows)

    async def get(self, ctx: CallerContext, entity: str, attribute: str,
                  as_of: datetime | None) -> SlotAnswer:
        ns = ctx.require_namespace()
        entity, attribute = entity_name(entity), attribute_name(attribute)
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, entity)
            slot = await repo.slot_row(conn, entity, attribute)
            if as_of is not None:
                current = await repo.as_of(conn, entity, attribute, as_of)
                parked: list[FactRow] = []
            else:
                current = await repo.live_in_slot(conn, entity, attribute)
                parked = await repo.live_in_slot(conn, entity, attribute, (Verdict.PARKED,))
                await record_served(conn, ctx, current, self._s)
            return SlotAnswer(await self._served(conn, current),
                              await self._served(conn, parked),
                              bool(slot and slot.set_valued), entity, attribute)

    async def history(self, ctx: CallerContext, entity: str, attribute: str) -> Served:
        ns = ctx.require_namespace()
        entity = entity_name(entity)
        attr = attribute_name(attribute) if attribute.strip() else None
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, entity)
            return await self._served(conn, await repo.history(conn, entity, attr))

    async def search(self, ctx: CallerContext, query: str, top_k: int) -> Served:
        """Live facts near the query (dense) or matching its words (lexical)."""
        vector = await self.query_vector(ctx, query, top_k)
        return await self.search_by(ctx, query, top_k, vector)

    async def searchable(self, ctx: CallerContext, query: str, top_k: int) -> bool:
        """Whether the namespace holds anything for a facts search (the
        arguments are checked first): a namespace with no facts skips the
        query's encode and both scans."""
        check_query(query, top_k, self._s)
        ns = ctx.require_namespace()
        async with tenant_tx(self._pool, ns) as conn:
            return await holds_searchable(conn, ns)

    async def query_vector(self, ctx: CallerContext, query: str, top_k: int,
                           given: QueryVector | None = None) -> np.ndarray | None:
        """The query's vector (None: the embedder is down), for one encode
        shared by the searches of one request: `given`, the caller's, when it
        is of this store's space; the arguments are checked first."""
        query, _ = check_query(query, top_k, self._s)
        return await self._embedder.embed_query(query, ctx, given)

    async def search_by(self, ctx: CallerContext, query: str, top_k: int,
                        vector: np.ndarray | None) -> Served:
        """`search` with the query's vector already encoded (None: the
        embedder is down, lexical only)."""
        ns = ctx.require_namespace()
        query, top_k = check_query(query, top_k, self._s)
        async with tenant_tx(self._pool, ns) as conn:
            rows = await ranked_facts(conn, query, vector, top_k, hybrid(self._s))
            await record_served(conn, ctx, rows, self._s)
            return await self._served(conn, rows)

    async def briefing(self, ctx: CallerContext, limit: int) -> tuple[Served, int]:
        """Live rules, decisions and preferences for the session-start
        briefing (rules first, newest first), and how many there are."""
        ns = ctx.require_namespace()
        limit = briefing_limit(limit, 10, "rules")
        async with tenant_tx(self._pool, ns) as conn:
            rows, total = await repo.live_of_kinds(conn, BRIEFING_KINDS, limit)
            return await self._served(conn, rows), total

    async def briefing_state(self, ctx: CallerContext, limit: int) -> tuple[Served, int]:
        """Live STATE facts for the briefing, newest first (0: none asked)."""
        ns = ctx.require_namespace()
        limit = briefing_limit(limit, 0, "state")
        if limit == 0:
            return Served([], {}), 0
        async with tenant_tx(self._pool, ns) as conn:
            rows, total = await repo.live_of_kinds(conn, STATE_KINDS, limit)
            return await self._served(conn, rows), total
