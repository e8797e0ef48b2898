"""Conflicts settled by a reviewer, and entity aliases."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from engram_kit.vocab import REVIEWER_ROLES, ConflictStatus, Role, Verdict

from . import repo
from . import repo_conflicts as conflicts
from .facts import parse_fact_id
from .normalise import entity_name
from .rows import ConflictRow, FactRow

STATUSES = tuple(ConflictStatus)


@dataclass(frozen=True)
class ConflictView:
    row: ConflictRow
    fact_a: FactRow
    fact_b: FactRow


class Review:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def views(self, conn: asyncpg.Connection,
                     rows: list[ConflictRow]) -> list[ConflictView]:
        facts = await conflicts.facts_by_id(
            conn, [r.fact_a for r in rows] + [r.fact_b for r in rows])
        return [ConflictView(r, facts[r.fact_a], facts[r.fact_b]) for r in rows]

    async def list(self, ctx: CallerContext, status: str, limit: int) -> list[ConflictView]:
        ns = ctx.require_namespace()
        status = status or ConflictStatus.OPEN
        if status not in STATUSES:
            raise InvalidArgument(f"status is one of {', '.join(STATUSES)}", field="status")
        if not 0 <= limit <= 200:
            raise InvalidArgument("limit is 1-200", field="limit")
        async with tenant_tx(self._pool, ns) as conn:
            return await self.views(conn, await conflicts.listing(conn, status, limit or 50))

    async def resolve(self, ctx: CallerContext, conflict_id: str, winner_id: str,
                      both_stand: bool, reasoning: str) -> ConflictView:
        """A person's call (docs/architecture.md#reviewer-decisions): reviewers only,
        never the writing agent."""
        ns = ctx.require_namespace()
        if ctx.role not in REVIEWER_ROLES:
            raise PermissionDenied("settling a conflict needs the reviewer role; you are "
                                   f"{ctx.role or Role.AGENT}: ask a reviewer")
        if both_stand == bool(winner_id):
            raise InvalidArgument("give exactly one of winner_id or both_stand", field="winner_id")
        reasoning = reasoning.strip()
        if not reasoning or len(reasoning) > 2000:
            raise InvalidArgument("reasoning is 1-2000 characters", field="reasoning")
        cid = parse_fact_id(conflict_id, "conflict_id")
        async with tenant_tx(self._pool, ns) as conn:
            row = await conflicts.lock(conn, cid)
            if row is None:
                raise NotFound(f"no conflict {cid}")
            if row.status != ConflictStatus.OPEN:
                raise Conflict(f"conflict {cid} is already {row.status}"
                               + (f" (winner {row.winner})" if row.winner else "")
                               + "; a settled conflict is not reopened")
            if both_stand:
                decided = await self._both_stand(conn, row, reasoning, ctx)
            else:
                decided = await self._winner(conn, row, parse_fact_id(winner_id, "winner_id"),
                                             reasoning, ctx)
            await repo.audit(conn, ns, ctx.principal, "conflict.resolve", str(cid),
                             {"status": decided.status, "winner": decided.winner,
                              "reasoning": reasoning})
            return (await self.views(conn, [decided]))[0]

    async def _winner(self, conn: asyncpg.Connection, row: ConflictRow,
                      winner: uuid.UUID, reasoning: str, ctx: CallerContext) -> ConflictRow:
        if winner not in (row.fact_a, row.fact_b):
            raise InvalidArgument(f"winner_id must be {row.fact_a} or {row.fact_b}",
                                  field="winner_id")
        loser = row.fact_b if winner == row.fact_a else row.fact_a
        await repo.set_verdict(conn, [winner], Verdict.ACTIVE)
        retired = await repo.supersede(conn, loser, winner, f"conflict resolved: {reasoning}")
        await repo.tombstone(conn, ctx.namespace, retired, f"lost conflict {row.id}")
        decided = await conflicts.decide(conn, row.id, ConflictStatus.RESOLVED, winner,
                                         reasoning, ctx.principal)
        await conflicts.close_for_retired(conn, loser, ctx.principal,
                                          f"lost conflict {row.id}")
        return decided

    async def _both_stand(self, conn: asyncpg.Connection, row: ConflictRow,
                          reasoning: str, ctx: CallerContext) -> ConflictRow:
        facts = await conflicts.facts_by_id(conn, [row.fact_a, row.fact_b])
        if any(f.verdict not in (Verdict.CONTESTED, Verdict.ACTIVE) for f in facts.values()):
            raise Conflict("both_stand needs both facts still live; one was retired since")
        decided = await conflicts.decide(conn, row.id, ConflictStatus.BOTH_STAND, None,
                                         reasoning, ctx.principal)
        still_open = await conflicts.open_for(conn, [row.fact_a, row.fact_b])
        await repo.set_verdict(conn, [f for f in facts if f not in still_open], Verdict.ACTIVE)
        return decided

    async def add_alias(self, ctx: CallerContext, entity: str, alias: str) -> tuple[str, str]:
        ns = ctx.require_namespace()
        entity, alias = entity_name(entity), entity_name(alias, "alias")
        if entity == alias:
            raise InvalidArgument("an alias must differ from the entity", field="alias")
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, entity)
            if await repo.has_facts(conn, alias):
                raise Conflict(f"{alias!r} already has facts of its own; merging two "
                               "entities is a reviewer's proposal, not an alias")
            existing = await repo.alias_target(conn, alias)
            if existing and existing != entity:
                raise Conflict(f"{alias!r} is already an alias of {existing!r}")
            await repo.insert_alias(conn, ns, alias, entity, ctx.principal)
            await repo.audit(conn, ns, ctx.principal, "alias.add", alias, {"entity": entity})
            return entity, alias
