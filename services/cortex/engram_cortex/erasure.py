"""Facts erased for good (a value that holds a secret), parked contenders
decided by a reviewer, and the facts one writer (a rogue or broken agent)
wrote in a window, retracted in bounded calls."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from engram_kit.audit import content_digest
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from engram_kit.vocab import REVIEWER_ROLES, Role, Verdict
from engram_kit.writer_window import WriterWindow

from . import repo, repo_forget
from . import repo_conflicts as conflicts
from . import repo_retraction as rr
from .normalise import attribute_name, entity_name, value_form
from .retraction import check_reason, parse_id
from .rows import FactRow
from .settings import CortexSettings

DECISIONS = ("accept", "discard")


@dataclass(frozen=True)
class Decided:
    fact: FactRow
    superseded: list[FactRow]


@dataclass(frozen=True)
class WriterRetracted:
    ids: list[str]
    more: bool
    limit: int


class Erasure:
    def __init__(self, pool: asyncpg.Pool, settings: CortexSettings) -> None:
        self._pool = pool
        self._s = settings

    async def fact_forget(self, ctx: CallerContext, entity: str, attribute: str, value: str,
                          reason: str) -> list[str]:
        """Every fact of the slot (or of one value), history included, with
        its conflicts, tombstones and journal images: nothing of it stays
        but an audit row with keyed digests."""
        ns, reason = ctx.require_namespace(), check_reason(reason, self._s)
        entity, attribute = entity_name(entity), attribute_name(attribute)
        norm = value_form(value) if value.strip() else None
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, entity)
            await repo.lock_slot(conn, ns, entity, attribute)
            ids = await rr.facts_in_slot(conn, entity, attribute, norm)
            if not ids:
                raise NotFound(f"no fact in {entity}.{attribute}"
                               + (f" with value {value!r}" if norm else ""), field="attribute")
            values = await rr.values_of(conn, ids)
            partners = await repo_forget.open_partners(conn, ids)
            await repo.forget_journal_images(conn, [str(i) for i in ids])
            await repo_forget.delete_facts(conn, ids)
            await rr.drop_slot_tombstones(conn, entity, attribute, norm)
            await repo_forget.reactivate(conn, [p for p in partners if p not in ids])
            await repo.audit(conn, ns, ctx.principal, "fact.erase", f"{entity}.{attribute}",
                             {"reason": reason, "ids": [str(i) for i in ids],
                              "value_hmacs": sorted({content_digest(v) for v in values})})
            return [str(i) for i in ids]

    async def contender_decide(self, ctx: CallerContext, fact_id: str, decision: str,
                               reasoning: str) -> Decided:
        """accept: the contender replaces the slot's current value (kept as
        history); discard: the contender is withdrawn and its value tombstoned."""
        if ctx.role not in REVIEWER_ROLES:
            raise PermissionDenied("deciding a contender needs the reviewer role; you are "
                                   f"{ctx.role or Role.AGENT}: ask a reviewer")
        if decision not in DECISIONS:
            raise InvalidArgument("decision is accept or discard", field="decision")
        reasoning = reasoning.strip()
        if not reasoning or len(reasoning) > 2000:
            raise InvalidArgument("reasoning is 1-2000 characters", field="reasoning")
        ns, fid = ctx.require_namespace(), parse_id(fact_id, "fact_id")
        async with tenant_tx(self._pool, ns) as conn:
            row = await repo.get_fact(conn, fid)
            if row is None:
                raise NotFound(f"no fact {fid} in this namespace", field="fact_id")
            await repo.lock_slot(conn, ns, row.entity, row.attribute)
            row = await repo.get_fact(conn, fid)
            assert row is not None  # the slot lock keeps it
            if row.verdict != Verdict.PARKED or row.retired_at is not None:
                raise Conflict(f"fact {fid} is {row.verdict}, not a parked contender")
            decided = await (self._accept(conn, ctx, row, reasoning) if decision == "accept"
                             else self._discard(conn, ctx, row, reasoning))
            await repo.audit(conn, ns, ctx.principal, f"contender.{decision}", str(fid),
                             {"reasoning": reasoning,
                              "superseded": [str(r.id) for r in decided.superseded]})
            return decided

    @staticmethod
    async def _accept(conn: asyncpg.Connection, ctx: CallerContext, row: FactRow,
                      reasoning: str) -> Decided:
        current = await repo.live_in_slot(conn, row.entity, row.attribute,
                                          (Verdict.ACTIVE, Verdict.CONTESTED))
        await repo.set_verdict(conn, [row.id], Verdict.ACTIVE)
        old = [] if row.set_member else current
        superseded = []
        for c in old:
            superseded.append(await repo.supersede(conn, c.id, row.id,
                                                   f"contender accepted: {reasoning}"))
            await conflicts.close_for_retired(conn, c.id, ctx.principal,
                                              f"contender {row.id} accepted")
        fact = await repo.get_fact(conn, row.id)
        assert fact is not None  # updated in this transaction
        return Decided(fact, superseded)

    @staticmethod
    async def _discard(conn: asyncpg.Connection, ctx: CallerContext, row: FactRow,
                       reasoning: str) -> Decided:
        fact = await repo.withdraw(conn, row.id, f"contender discarded: {reasoning}",
                                   end_validity=False)
        await repo.tombstone(conn, ctx.namespace, fact, f"discarded contender: {reasoning}")
        await conflicts.close_for_retired(conn, row.id, ctx.principal,
                                          "contender discarded")
        return Decided(fact, [])

    async def forget_by_writer(self, ctx: CallerContext, w: WriterWindow) -> WriterRetracted:
        """Live facts one principal wrote in [since, until), oldest first, at
        most forget_writer_max_rows per call, retracted (kept as history and
        tombstoned, as fact_retract does); dry_run only lists them."""
        if ctx.role != Role.OPERATOR:
            raise PermissionDenied("retracting what a writer wrote needs the operator role; "
                                   f"you are {ctx.role or Role.AGENT}")
        ns, reason = ctx.require_namespace(), check_reason(w.reason, self._s)
        w = w.checked()
        principal = w.principal
        limit = self._s.forget_writer_max_rows
        async with tenant_tx(self._pool, ns) as conn:
            rows = await rr.by_writer(conn, principal, w.since, w.until, limit + 1)
            more, rows = len(rows) > limit, rows[:limit]
            if w.dry_run or not rows:
                return WriterRetracted([str(r.id) for r in rows], more, limit)
            done = []
            for r in sorted(rows, key=lambda r: (r.entity, r.attribute, r.id)):
                await repo.lock_slot(conn, ns, r.entity, r.attribute)
                fresh = await repo.get_fact(conn, r.id)
                if fresh is None or fresh.retired_at is not None:
                    continue  # retired since it was listed
                fact = await repo.withdraw(conn, r.id, f"writer retracted: {reason}",
                                           end_validity=False)
                await repo.tombstone(conn, ns, fact, f"writer retracted: {reason}")
                await conflicts.close_for_retired(conn, r.id, ctx.principal,
                                                  f"writer retracted: {reason}")
                done.append(str(r.id))
            await repo.audit(conn, ns, ctx.principal, "fact.forget_by_writer", principal,
                             {"reason": reason, "ids": done, "more": more})
            return WriterRetracted(done, more, limit)
