"""Domain rows -> proto messages, shared by the cortex servicers so a fact,
an edge or a conflict is served one way whichever service returns it."""

from __future__ import annotations

import uuid
from typing import Any, cast

from engram.v1 import cortex_pb2 as pb
from engram_kit.timestamps import to_timestamp
from engram_kit.vocab import ConflictStatus

from .labels import label, resolve_call
from .reads import Served
from .review import ConflictView
from .review_queue import Item
from .rows import (
    EdgeRow,
    FactRow,
    LessonRow,
    lesson_score_of,
    recorded_by_of,
    score_of,
    world_score_of,
)
from .validation import EvidenceIn
from .vocabulary import Relation
from .walk import DerivedEdge, Walk
from .world import WorldView

KIND_NAMES = {v: k.removeprefix("FACT_KIND_") for k, v in pb.FactKind.items() if v}
# The enum wrapper's items() is untyped; its numbers are the enum's values.
KIND_VALUES = {name: cast(pb.FactKind, value) for value, name in KIND_NAMES.items()}


def kind_name(kind: int) -> str:
    return KIND_NAMES.get(kind, "UNSPECIFIED")


def fact_message(row: FactRow, conflict_id: uuid.UUID | None = None,
                 as_of: Any = None, re_verify: str = "") -> pb.Fact:
    lifetime = row.expected_lifetime
    return pb.Fact(
        id=str(row.id), entity=row.entity, attribute=row.attribute, value=row.value,
        kind=KIND_VALUES[row.kind], verdict=row.verdict,
        label=label(row, conflict_id, as_of),
        evidence=pb.Evidence(quote=row.evidence_quote, source_type=row.source_type,
                             source_ref=row.source_ref, captured_by=row.captured_by),
        origin=row.origin, confidence=row.confidence,
        valid_from=to_timestamp(row.valid_from), valid_to=to_timestamp(row.valid_to),
        recorded_at=to_timestamp(row.recorded_at), retired_at=to_timestamp(row.retired_at),
        details=pb.KindDetails(
            scope=row.scope or "", trigger_predicate=row.trigger_predicate or "",
            status_detail=row.status_detail or "",
            expected_lifetime_seconds=int(lifetime.total_seconds()) if lifetime else 0,
            earned_by=row.earned_by or "", risk_weight=row.risk_weight or 0.0,
            subject=row.subject or "", reopen_trigger=row.reopen_trigger or ""),
        writer_principal=row.writer_principal,
        superseded_by=str(row.superseded_by or ""), supersedes=str(row.supersedes or ""),
        set_member=row.set_member, conflict_id=str(conflict_id or ""),
        score=score_of(row), tags=list(row.tags),
        last_verified_at=to_timestamp(row.last_verified_at), re_verify=re_verify,
    )


def served(s: Served, as_of: Any = None) -> list[pb.Fact]:
    return [fact_message(r, s.conflict_of.get(r.id), as_of, s.re_verify.get(r.id, ""))
            for r in s.rows]


def conflict_message(v: ConflictView) -> pb.Conflict:
    r = v.row
    open_id = r.id if r.status == ConflictStatus.OPEN else None
    return pb.Conflict(
        id=str(r.id), fact_a=fact_message(v.fact_a, open_id),
        fact_b=fact_message(v.fact_b, open_id),
        lane=r.lane, status=r.status, winner_id=str(r.winner or ""),
        reasoning=r.reasoning, decided_by=r.decided_by or "",
        opened_at=to_timestamp(r.opened_at), decided_at=to_timestamp(r.decided_at),
        resolve_call=resolve_call(r.id) if open_id else "")


def evidence_of(e: pb.Evidence) -> EvidenceIn:
    return EvidenceIn(e.quote, e.source_type, e.source_ref, e.captured_by)


def edge_message(e: EdgeRow) -> pb.Edge:
    return pb.Edge(
        id=str(e.id), src=e.src, relation=e.relation, dst=e.dst,
        provenance=e.provenance, evidence_quote=e.evidence_quote,
        valid_from=to_timestamp(e.valid_from), valid_to=to_timestamp(e.valid_to),
        recorded_at=to_timestamp(e.recorded_at), retired_at=to_timestamp(e.retired_at))


def derived_message(d: DerivedEdge) -> pb.Edge:
    return pb.Edge(src=d.src, relation=d.relation, dst=d.dst, derived=True,
                   provenance=f"derived ({d.via})")


def walk_edges(walk: Walk) -> list[pb.Edge]:
    return [edge_message(e) for e in walk.edges] + [derived_message(d) for d in walk.derived]


def relation_message(r: Relation) -> pb.Relation:
    return pb.Relation(name=r.name, inverse=r.inverse, transitive=r.transitive,
                       symmetric=r.symmetric)


def world_message(v: WorldView) -> pb.WorldFact:
    r = v.row
    return pb.WorldFact(
        id=str(r.id), entity=r.entity, attribute=r.attribute, value=r.value,
        source_url=r.source_url, source_quote=r.source_quote, freshness=r.freshness,
        confidence=r.confidence, effective_confidence=round(v.effective, 4),
        stale=v.stale, checked_at=to_timestamp(r.checked_at),
        recorded_at=to_timestamp(r.recorded_at), score=world_score_of(r))


def lesson_message(r: LessonRow, re_verify: bool = False) -> pb.Lesson:
    """A lesson; `re_verify` as a search or the briefing flagged it (a lesson
    just drawn, retired or restored is not)."""
    return pb.Lesson(
        id=str(r.id), polarity=r.polarity, text=r.text, task=r.task,
        confidence=r.confidence, signals=r.signals,
        subject_fact_ids=[str(i) for i in r.subject_fact_ids],
        re_verify=re_verify, distilled_by=r.distilled_by,
        score=lesson_score_of(r), recorded_by=recorded_by_of(r))


def review_item_message(i: Item) -> pb.ReviewItem:
    item = pb.ReviewItem(id=i.id, kind=i.kind, summary=i.summary,
                         created_at=to_timestamp(i.created_at), decide_call=i.decide_call)
    if i.conflict is not None:
        item.conflict.CopyFrom(conflict_message(i.conflict))
    if i.contender is not None:
        item.contender.CopyFrom(fact_message(i.contender))
    return item
