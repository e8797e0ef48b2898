"""Facts: one current answer per slot, every earlier answer kept as history.

`set` runs the synchronous conflict pipeline (lanes.py) under a per-slot
lock, so two writers to one slot are decided one after the other."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg
import numpy as np

from engram_kit import idempotency
from engram_kit.audit import content_digest
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.errors import Conflict, InvalidArgument, NotFound
from engram_kit.idempotency import Keyed
from engram_kit.vocab import FactAction, Lane

from . import events, journal, lanes, repo
from . import repo_conflicts as conflicts
from .labels import resolve_call
from .normalise import attribute_name, entity_name, value_form
from .rows import FactRow
from .settings import CortexSettings
from .tags import resolve_all, tag_form
from .validation import (
    EvidenceIn,
    check_confidence,
    check_details,
    check_evidence,
    check_kind,
    check_origin,
    check_value,
)


@dataclass(frozen=True)
class FactInput:
    entity: str
    attribute: str
    value: str
    kind: str = "STATE"
    evidence: EvidenceIn = EvidenceIn()
    origin: str = "agent"
    valid_from: datetime | None = None
    confidence: float = 1.0
    replaces: bool = False
    supersedes: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    batch: str = ""


@dataclass
class SetOutcome:
    action: str
    fact: FactRow
    lane: str
    related_id: str = ""
    conflict_id: str = ""
    reasserts_retired: str = ""
    note: str = ""
    resolve_call: str = ""
    unresolved_tags: list[str] = field(default_factory=list)


def _replay_of(outcome: SetOutcome) -> dict[str, Any]:
    return {**{f.name: getattr(outcome, f.name) for f in dataclasses.fields(outcome)
               if f.name != "fact"}, "fact_id": str(outcome.fact.id)}


def statement(entity: str, attribute: str, value: str) -> str:
    return f"{entity} {attribute.replace('_', ' ')}: {value}"


def parse_fact_id(value: str, field_name: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise InvalidArgument(f"{field_name} must be a fact id (a UUID), got {value[:40]!r}",
                              field=field_name) from None


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))


class FactStore:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient,
                 settings: CortexSettings,
                 on_outbox_write: Callable[[], None] = lambda: None) -> None:
        self._pool = pool
        self._embedder = embedder
        self._s = settings
        self._on_outbox_write = on_outbox_write

    @property
    def pool(self) -> asyncpg.Pool:
        return self._pool

    def _validate(self, f: FactInput) -> FactInput:
        kind = check_kind(f.kind)
        return FactInput(
            entity=entity_name(f.entity), attribute=attribute_name(f.attribute),
            value=check_value(f.value, self._s), kind=kind,
            evidence=check_evidence(f.evidence, self._s), origin=check_origin(f.origin),
            valid_from=f.valid_from, confidence=check_confidence(f.confidence),
            replaces=f.replaces, supersedes=f.supersedes,
            details=check_details(kind, f.details), tags=[tag_form(t) for t in f.tags],
            batch=f.batch[:200])

    async def set(self, ctx: CallerContext, raw: FactInput) -> SetOutcome:
        outcome = await self._set(ctx, raw)
        self._on_outbox_write()  # committed: the relay may publish now
        return outcome

    async def _vectors(self, ctx: CallerContext, ns: str,
                       f: FactInput) -> tuple[list[np.ndarray] | None, dict[str, np.ndarray]]:
        """The new value's vectors and the slot's live values', embedded
        before the write's transaction (no remote call inside it). A value
        that went live in between is compared by words only."""
        async with tenant_tx(self._pool, ns) as conn:
            entity = await repo.resolve_entity(conn, f.entity)
            live = sorted({r.value for r in await repo.live_in_slot(conn, entity, f.attribute)
                           if r.kind == f.kind})
        vectors = await self._embedder.embed_many(
            [f.value, statement(entity, f.attribute, f.value)] + live, ctx)
        if not vectors:
            return None, {}
        return list(vectors[:2]), dict(zip(live, vectors[2:], strict=True))

    async def _set(self, ctx: CallerContext, raw: FactInput) -> SetOutcome:
        ns = ctx.require_namespace()
        f = self._validate(raw)
        supersedes = parse_fact_id(f.supersedes, "supersedes") if f.supersedes else None
        keyed = Keyed.of("SetFact", ctx.idempotency_key, dataclasses.asdict(f))
        vectors, by_value = await self._vectors(ctx, ns, f)
        async with tenant_tx(self._pool, ns) as conn:
            if (earlier := await idempotency.replay(conn, keyed)) is not None:
                return await self._replayed(conn, earlier)
            entity = await repo.resolve_entity(conn, f.entity)
            f = dataclasses.replace(f, entity=entity)
            slot = await repo.lock_slot(conn, ns, entity, f.attribute)
            before = await journal.snapshot(conn, entity, f.attribute) if f.batch else None
            if slot is not None and slot.set_valued:
                raise Conflict(f"{entity}.{f.attribute} is a set-valued slot; use set_add or "
                               "set_remove")
            live = [r for r in await repo.live_in_slot(conn, entity, f.attribute)
                    if r.kind == f.kind]
            if supersedes is not None and supersedes not in {r.id for r in live}:
                raise NotFound(f"supersedes names {supersedes}, which is not a live "
                               f"{f.kind} fact in {entity}.{f.attribute}")
            cosines = ({str(r.id): cosine(vectors[0], by_value[r.value])
                        for r in live if r.value in by_value} if vectors else {})
            decision = lanes.decide(
                lanes.Incoming(f.value, f.kind, f.origin, f.evidence.quote, f.replaces,
                               f.supersedes),
                [lanes.Existing(str(r.id), r.value, r.verdict, r.origin)
                 for r in live], cosines, self._s.paraphrase_cosine)
            tags, unresolved = await resolve_all(conn, ns, f.tags, ctx.principal)
            f = dataclasses.replace(f, tags=tags)
            outcome = await self._apply(conn, ctx, f, decision, vectors)
            outcome.unresolved_tags = unresolved
            if outcome.action != "confirm":
                await events.fact_written(conn, ctx, outcome.fact.id, entity, f.attribute,
                                          outcome.action, f.batch)
            if before is not None:
                await journal.record(conn, ns, f.batch, before,
                                     await journal.snapshot(conn, entity, f.attribute))
            if not vectors:
                outcome.note = ("embedder unavailable: the paraphrase check used words only "
                                "and the fact has no vector yet") + (
                                    f"; {outcome.note}" if outcome.note else "")
            await idempotency.remember(conn, ns, keyed, _replay_of(outcome))
            return outcome

    @staticmethod
    async def _replayed(conn: asyncpg.Connection, earlier: dict[str, Any]) -> SetOutcome:
        """The first call's answer, with the fact as it is now."""
        row = await repo.get_fact(conn, uuid.UUID(earlier.pop("fact_id")))
        if row is None:
            raise NotFound("the fact this request wrote is gone (forgotten since)")
        return SetOutcome(fact=row, **earlier)

    async def _apply(self, conn: asyncpg.Connection, ctx: CallerContext, f: FactInput,
                     decision: lanes.Decision, vectors: list[np.ndarray] | None) -> SetOutcome:
        norm = value_form(f.value)
        tomb = None
        if decision.action != "confirm":
            tomb = await repo.find_tombstone(conn, f.entity, f.attribute, norm)
            if tomb is not None and lanes.TIERS[f.origin] < lanes.TIERS["user"]:
                decision = lanes.Decision(FactAction.PARK, Lane.TOMBSTONE, decision.related)
        related = [uuid.UUID(r) for r in decision.related]
        if decision.action == "park" and (parked := await repo.find_parked(
                conn, f.entity, f.attribute, f.kind, norm)) is not None:
            decision = lanes.Decision(FactAction.CONFIRM, decision.lane, (str(parked),))
            related = [parked]
        if decision.action == "confirm":
            row = await repo.confirm(conn, related[0])
            await repo.audit(conn, ctx.namespace, ctx.principal, "fact.confirm", str(row.id),
                             {"lane": decision.lane, "value_hmac": content_digest(f.value),
                              "quote_hmac": content_digest(f.evidence.quote)})
            return SetOutcome("confirm", row, decision.lane, str(row.id),
                              note=f"already {'parked' if row.verdict == 'parked' else 'known'}"
                                   f" ({decision.lane}); nothing new written")
        verdict = {"insert": "active", "supersede": "active", "contest": "contested",
                   "park": "parked"}[decision.action]
        row = await repo.insert_fact(conn, self._new_fact(ctx, f, norm, verdict, vectors,
                                                           related, decision))
        await repo.ensure_slot(conn, ctx.namespace, f.entity, f.attribute, False)
        outcome = SetOutcome(decision.action, row, decision.lane,
                             str(related[0]) if related else "",
                             reasserts_retired=str(tomb) if tomb else "")
        await self._lane_effects(conn, ctx, row, related, decision, outcome)
        await repo.audit(conn, ctx.namespace, ctx.principal, f"fact.{decision.action}",
                         str(row.id), {"lane": decision.lane, "related": decision.related,
                                          "slot": f"{f.entity}.{f.attribute}",
                                          "value_hmac": content_digest(f.value),
                                          "origin": f.origin})
        return outcome

    def _new_fact(self, ctx: CallerContext, f: FactInput, norm: str, verdict: str,
                  vectors: list[np.ndarray] | None, related: list[uuid.UUID],
                  decision: lanes.Decision) -> repo.NewFact:
        return repo.NewFact(
            namespace=ctx.namespace, entity=f.entity, attribute=f.attribute, value=f.value,
            norm_value=norm, kind=f.kind, verdict=verdict, origin=f.origin,
            confidence=f.confidence, quote=f.evidence.quote,
            source_type=f.evidence.source_type, source_ref=f.evidence.source_ref,
            captured_by=f.evidence.captured_by or ctx.principal,
            writer_principal=ctx.principal, writer_client=ctx.client_id,
            writer_session=ctx.session_id, valid_from=f.valid_from,
            embedding=vectors[1] if vectors else None, details=f.details,
            supersedes=related[0] if decision.action == "supersede" else None, tags=f.tags)

    async def _lane_effects(self, conn: asyncpg.Connection, ctx: CallerContext,
                            row: FactRow, related: list[uuid.UUID],
                            decision: lanes.Decision, outcome: SetOutcome) -> None:
        if decision.action == "supersede":
            for old_id in related:
                old = await repo.supersede(conn, old_id, row.id, f"lane {decision.lane}")
                await repo.tombstone(conn, ctx.namespace, old, f"superseded by {row.id}")
                await conflicts.close_for_retired(conn, old_id, ctx.principal,
                                                  f"superseded by {row.id}")
            outcome.note = f"superseded {len(related)} earlier value(s); kept as history"
        elif decision.action == "contest":
            await repo.set_verdict(conn, related, "contested")
            for old_id in related:
                cid = await conflicts.open_conflict(conn, ctx.namespace, old_id, row.id,
                                                    "rule" if decision.lane == "rule"
                                                    else "contested")
                outcome.conflict_id = outcome.conflict_id or str(cid)
            outcome.resolve_call = resolve_call(outcome.conflict_id)
            outcome.note = ("a RULE never auto-resolves: both contested" if decision.lane ==
                            "rule" else "disagrees with the current value: both contested")
        elif decision.action == "park":
            outcome.note = {
                "origin_tier": "a weaker origin than the current value's: parked as a "
                               "contender, the current value stands",
                "tombstone": "this value was retired before: parked, not reinstated "
                             "(a user-origin write may reinstate it)",
            }[decision.lane]
