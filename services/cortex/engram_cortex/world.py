"""World facts: external facts that must cite a source URL and a verbatim
quote, whose trust decays with age by freshness class."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg
import numpy as np

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.errors import InvalidArgument
from engram_kit.vocab import FactAction

from . import repo, repo_world
from .facts import statement
from .normalise import attribute_name, entity_name, value_form
from .repo_search import hybrid, ranked_world
from .rows import WorldFactRow
from .search_args import check_query
from .settings import CortexSettings
from .validation import check_confidence, check_value

HALF_LIFE_DAYS = {"volatile": 7.0, "seasonal": 90.0, "stable": 730.0}


@dataclass(frozen=True)
class WorldView:
    row: WorldFactRow  # RankedWorldFactRow where a search found it
    effective: float
    stale: bool


def decayed(row: WorldFactRow, now: datetime | None = None) -> WorldView:
    """Trust halves every half-life since the fact was last checked; past one
    half-life it is stale (re-check the source)."""
    now = now or datetime.now(UTC)
    age_days = max((now - row.checked_at).total_seconds() / 86400, 0.0)
    half_life = HALF_LIFE_DAYS[row.freshness]
    return WorldView(row, float(row.confidence) * 0.5 ** (age_days / half_life),
                     age_days > half_life)


class World:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: CortexSettings) -> None:
        self._pool = pool
        self._embedder = embedder
        self._s = settings

    def _check(self, url: str, quote: str, freshness: str) -> str:
        if not url.startswith(("http://", "https://")) or len(url) > 2000 or " " in url:
            raise InvalidArgument("source_url must be an http(s) URL (max 2000 chars)",
                                  field="source_url")
        if not quote.strip() or len(quote) > self._s.quote_max_chars:
            raise InvalidArgument("source_quote is required: the verbatim words of the "
                                  f"source (max {self._s.quote_max_chars} chars)",
                                  field="source_quote")
        freshness = freshness or "seasonal"
        if freshness not in HALF_LIFE_DAYS:
            raise InvalidArgument(f"freshness is one of {', '.join(HALF_LIFE_DAYS)}",
                                  field="freshness")
        return freshness

    async def set(self, ctx: CallerContext, entity: str, attribute: str, value: str,
                  url: str, quote: str, freshness: str,
                  confidence: float) -> tuple[str, WorldView]:
        ns = ctx.require_namespace()
        freshness = self._check(url, quote, freshness)
        entity, attribute = entity_name(entity), attribute_name(attribute)
        value, confidence = check_value(value, self._s), check_confidence(confidence)
        vectors = await self._embedder.embed_many([statement(entity, attribute, value)], ctx)
        async with tenant_tx(self._pool, ns) as conn:
            await repo.lock_slot(conn, ns, f"world:{entity}", attribute)
            live = await repo_world.live_in_slot(conn, entity, attribute)
            same = [r for r in live if r.norm_value == value_form(value)]
            if same:
                row = await repo_world.recheck(conn, same[0].id, url, quote, confidence)
                await repo.audit(conn, ns, ctx.principal, "world.confirm", str(row.id),
                                 {"source_url": url})
                return FactAction.CONFIRM, decayed(row)
            row = await self._insert(conn, ctx, entity, attribute, value, url, quote,
                                     freshness, confidence, vectors)
            for old in live:  # a newer citation for the slot replaces the older one
                await repo_world.retire(conn, old.id, row.id)
            await repo.audit(conn, ns, ctx.principal, "world.set", str(row.id),
                             {"source_url": url, "superseded": [str(o.id) for o in live]})
            return (FactAction.SUPERSEDE if live else FactAction.INSERT), decayed(row)

    async def _insert(self, conn: asyncpg.Connection, ctx: CallerContext, entity: str,
                      attribute: str, value: str, url: str, quote: str, freshness: str,
                      confidence: float, vectors: list[np.ndarray] | None) -> WorldFactRow:
        return await repo_world.insert(
            conn, ctx.namespace, entity, attribute, value, value_form(value), url, quote,
            freshness, confidence, ctx.principal, vectors[0] if vectors else None)

    async def search(self, ctx: CallerContext, query: str, top_k: int) -> list[WorldView]:
        query, top_k = check_query(query, top_k, self._s)
        vector = await self._embedder.embed_one(query, ctx, query=True)
        return await self.search_by(ctx, query, top_k, vector)

    async def search_by(self, ctx: CallerContext, query: str, top_k: int,
                        vector: np.ndarray | None) -> list[WorldView]:
        """`search` with the query's vector already encoded (None: lexical only)."""
        ns = ctx.require_namespace()
        query, top_k = check_query(query, top_k, self._s)
        async with tenant_tx(self._pool, ns) as conn:
            rows = await ranked_world(conn, query, vector, top_k, hybrid(self._s))
        return [decayed(r) for r in rows]
