"""Retraction and set-valued slots: removal keeps the row, tombstones the
value, and a removed value that comes back is recognised."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from engram_kit import idempotency
from engram_kit.audit import content_digest
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.errors import Conflict, InvalidArgument, NotFound, ResourceExhausted
from engram_kit.idempotency import Keyed
from engram_kit.vocab import FactAction, Origin, Verdict

from . import lanes, repo
from . import repo_conflicts as conflicts
from .facts import statement
from .normalise import attribute_name, entity_name, value_form
from .rows import FactRow
from .settings import CortexSettings
from .validation import EvidenceIn, check_evidence, check_kind, check_origin, check_value


@dataclass(frozen=True)
class MemberOutcome:
    action: str
    fact: FactRow
    members: int
    reasserts_retired: str = ""


class SlotEditor:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: CortexSettings) -> None:
        self._pool = pool
        self._embedder = embedder
        self._s = settings

    def _reason(self, reason: str) -> str:
        reason = reason.strip()
        if not reason or len(reason) > self._s.reason_max_chars:
            raise InvalidArgument(f"reason is 1-{self._s.reason_max_chars} characters",
                                  field="reason")
        return reason

    async def retract(self, ctx: CallerContext, entity: str, attribute: str, value: str,
                      reason: str) -> list[str]:
        """The ids of the facts retracted (a replay: the first call's)."""
        ns = ctx.require_namespace()
        reason = self._reason(reason)
        entity, attribute = entity_name(entity), attribute_name(attribute)
        keyed = Keyed.of("RetractFact", ctx.idempotency_key, entity, attribute, value, reason)
        async with tenant_tx(self._pool, ns) as conn:
            if (earlier := await idempotency.replay(conn, keyed)) is not None:
                return list(earlier["ids"])
            entity = await repo.resolve_entity(conn, entity)
            await repo.lock_slot(conn, ns, entity, attribute)
            live = await repo.live_in_slot(conn, entity, attribute,
                                           (Verdict.ACTIVE, Verdict.CONTESTED, Verdict.PARKED))
            if value.strip():
                live = [r for r in live if r.norm_value == value_form(value)]
            if not live:
                raise NotFound(f"no live fact in {entity}.{attribute}"
                               + (f" with value {value!r}" if value.strip() else ""))
            done = []
            for row in live:
                done.append(await repo.withdraw(conn, row.id, reason, end_validity=False))
                await repo.tombstone(conn, ns, row, f"retracted: {reason}")
                await conflicts.close_for_retired(conn, row.id, ctx.principal,
                                                  f"retracted: {reason}")
                await repo.audit(conn, ns, ctx.principal, "fact.retract", str(row.id),
                                 {"reason": reason,
                                  "value_hmac": content_digest(row.value)})
            ids = [str(r.id) for r in done]
            await idempotency.remember(conn, ns, keyed, {"ids": ids})
            return ids

    async def add(self, ctx: CallerContext, entity: str, attribute: str, member: str,
                  kind: str, evidence: EvidenceIn, origin: str) -> MemberOutcome:
        ns = ctx.require_namespace()
        member, kind = check_value(member, self._s, "member"), check_kind(kind or "STATE")
        evidence, origin = check_evidence(evidence, self._s), check_origin(origin)
        entity, attribute = entity_name(entity), attribute_name(attribute)
        vectors = await self._embedder.embed_many([statement(entity, attribute, member)], ctx)
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, entity)
            slot = await repo.lock_slot(conn, ns, entity, attribute)
            members = await repo.live_in_slot(conn, entity, attribute,
                                              (Verdict.ACTIVE, Verdict.CONTESTED, Verdict.PARKED))
            if slot is not None and not slot.set_valued and members:
                raise Conflict(f"{entity}.{attribute} holds one value; use fact_set, or "
                               "retract it before using it as a set")
            norm = value_form(member)
            same = [r for r in members if r.norm_value == norm]
            if same:
                return MemberOutcome(FactAction.CONFIRM, same[0], len(members))
            if len(members) >= self._s.set_members_max:
                raise ResourceExhausted(f"{entity}.{attribute} has {len(members)} members "
                                        f"(set_members_max={self._s.set_members_max})")
            tomb = await repo.find_tombstone(conn, entity, attribute, norm)
            parked = tomb is not None and lanes.TIERS[origin] < lanes.TIERS[Origin.USER]
            row = await repo.insert_fact(conn, repo.NewFact(
                ns, entity, attribute, member, norm, kind,
                Verdict.PARKED if parked else Verdict.ACTIVE, origin, 1.0, evidence.quote,
                evidence.source_type, evidence.source_ref,
                evidence.captured_by or ctx.principal, ctx.principal, ctx.client_id,
                ctx.session_id, None, vectors[0] if vectors else None, set_member=True))
            await repo.ensure_slot(conn, ns, entity, attribute, True)
            await repo.mark_set_valued(conn, entity, attribute)
            await repo.audit(conn, ns, ctx.principal, "set.add", str(row.id),
                             {"slot": f"{entity}.{attribute}",
                              "member_hmac": content_digest(member), "parked": parked})
            return MemberOutcome(FactAction.PARK if parked else FactAction.INSERT, row,
                                 len(members) + (0 if parked else 1),
                                 str(tomb) if tomb else "")

    async def remove(self, ctx: CallerContext, entity: str, attribute: str, member: str,
                     reason: str) -> MemberOutcome:
        ns = ctx.require_namespace()
        reason = self._reason(reason or "removed from the set")
        entity, attribute = entity_name(entity), attribute_name(attribute)
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, entity)
            await repo.lock_slot(conn, ns, entity, attribute)
            members = await repo.live_in_slot(conn, entity, attribute, (Verdict.ACTIVE,))
            match = [r for r in members if r.norm_value == value_form(member)]
            if not match:
                raise NotFound(f"{member!r} is not a current member of {entity}.{attribute}")
            row = await repo.withdraw(conn, match[0].id, reason, end_validity=True)
            await repo.tombstone(conn, ns, row, f"removed: {reason}")
            await repo.audit(conn, ns, ctx.principal, "set.remove", str(row.id),
                             {"slot": f"{entity}.{attribute}",
                              "member_hmac": content_digest(member), "reason": reason})
            return MemberOutcome(FactAction.REMOVE, row, len(members) - 1)
