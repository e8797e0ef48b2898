"""Freshness: fact_verify stamps a slot's current value as still true, and
memory entries cited as evidence that were superseded or contested are
recorded, so reads serve the facts resting on them with `re_verify`."""

from __future__ import annotations

import uuid

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound
from engram_kit.vocab import EvidenceChange, Verdict

from . import repo, repo_freshness
from .normalise import attribute_name, entity_name
from .reads import Served, serve

# One FlagEvidence call names at most this many entries.
FLAG_REFS_MAX = 100


class Freshness:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def verify(self, ctx: CallerContext, entity: str, attribute: str) -> Served:
        """Stamp the slot's active facts verified now. A contested slot has no
        value to verify (settle it first); an empty one is not found."""
        ns = ctx.require_namespace()
        entity, attribute = entity_name(entity), attribute_name(attribute)
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, entity)
            await repo.lock_slot(conn, ns, entity, attribute)
            live = await repo.live_in_slot(conn, entity, attribute)
            active = [r.id for r in live if r.verdict == Verdict.ACTIVE]
            if not active:
                if live:
                    raise Conflict(f"{entity}.{attribute} is contested: no single current "
                                   "value to verify; settle it with conflict_resolve first")
                raise NotFound(f"no current fact in {entity}.{attribute} to verify; "
                               "fact_set it first", field="attribute")
            rows = await repo_freshness.verify(conn, active)
            for row in rows:
                await repo.audit(conn, ns, ctx.principal, "fact.verify", str(row.id),
                                 {"slot": f"{entity}.{attribute}"})
            return await serve(conn, rows)

    async def flag(self, ctx: CallerContext, refs: list[str], change: str,
                   by_ref: str) -> int:
        """Memory entries that changed; a repeat flags nothing more."""
        ns = ctx.require_namespace()
        try:
            kind = EvidenceChange(change)
        except ValueError:
            raise InvalidArgument("change is superseded or contested",
                                  field="change") from None
        if len(refs) > FLAG_REFS_MAX:
            raise InvalidArgument(f"at most {FLAG_REFS_MAX} source_refs per call",
                                  field="source_refs")
        for ref in [*refs, *([by_ref] if by_ref else [])]:
            try:
                uuid.UUID(ref)
            except ValueError:
                raise InvalidArgument(f"{ref[:40]!r} is not a memory entry id",
                                      field="source_refs") from None
        if not refs:
            return 0
        async with tenant_tx(self._pool, ns) as conn:
            flagged = await repo_freshness.flag(conn, ns, sorted(set(refs)), kind, by_ref)
            if flagged:
                await repo.audit(conn, ns, ctx.principal, "evidence.flag", by_ref,
                                 {"change": str(kind), "entries": flagged})
            return flagged
