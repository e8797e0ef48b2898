"""gRPC servicer: proto <-> domain translation only."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg

from engram.v1 import cortex_pb2 as pb
from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit.context import current_caller
from engram_kit.timestamps import optional_datetime, to_timestamp

from . import journal
from .facts import FactInput, FactStore
from .forget import forget_by_source
from .graph import Graph
from .labels import label, resolve_call
from .lesson_merge import LessonMerger
from .lessons import Lessons
from .merging import Merging
from .reads import FactReader, Served
from .recall import Recall
from .review import ConflictView, Review
from .review_queue import ReviewQueue
from .servicer_graph import GraphHandlers
from .servicer_knowledge import KnowledgeHandlers, lesson_message
from .servicer_merge import MergeHandlers
from .slots import SlotEditor
from .tags import TagRegistry
from .validation import EvidenceIn
from .world import World

KIND_NAMES = {v: k.removeprefix("FACT_KIND_") for k, v in pb.FactKind.items() if v}
KIND_VALUES = {name: value for value, name in KIND_NAMES.items()}


def kind_name(kind: int) -> str:
    return KIND_NAMES.get(kind, "UNSPECIFIED")


def fact_message(row: asyncpg.Record, conflict_id: uuid.UUID | None = None,
                 as_of: Any = None) -> pb.Fact:
    lifetime = row["expected_lifetime"]
    return pb.Fact(
        id=str(row["id"]), entity=row["entity"], attribute=row["attribute"], value=row["value"],
        kind=KIND_VALUES[row["kind"]], verdict=row["verdict"],
        label=label(row, conflict_id, as_of),
        evidence=pb.Evidence(quote=row["evidence_quote"], source_type=row["source_type"],
                             source_ref=row["source_ref"], captured_by=row["captured_by"]),
        origin=row["origin"], confidence=row["confidence"],
        valid_from=to_timestamp(row["valid_from"]), valid_to=to_timestamp(row["valid_to"]),
        recorded_at=to_timestamp(row["recorded_at"]), retired_at=to_timestamp(row["retired_at"]),
        details=pb.KindDetails(
            scope=row["scope"] or "", trigger_predicate=row["trigger_predicate"] or "",
            status_detail=row["status_detail"] or "",
            expected_lifetime_seconds=int(lifetime.total_seconds()) if lifetime else 0,
            earned_by=row["earned_by"] or "", risk_weight=row["risk_weight"] or 0.0,
            subject=row["subject"] or ""),
        writer_principal=row["writer_principal"],
        superseded_by=str(row["superseded_by"] or ""), supersedes=str(row["supersedes"] or ""),
        set_member=row["set_member"], conflict_id=str(conflict_id or ""),
        score=float(row.get("score") or 0.0), tags=list(row.get("tags") or []),
    )


def served(s: Served, as_of: Any = None) -> list[pb.Fact]:
    return [fact_message(r, s.conflict_of.get(r["id"]), as_of) for r in s.rows]


def conflict_message(v: ConflictView) -> pb.Conflict:
    r = v.row
    return pb.Conflict(
        id=str(r["id"]), fact_a=fact_message(v.fact_a, r["id"] if r["status"] == "open" else None),
        fact_b=fact_message(v.fact_b, r["id"] if r["status"] == "open" else None),
        lane=r["lane"], status=r["status"], winner_id=str(r["winner"] or ""),
        reasoning=r["reasoning"], decided_by=r["decided_by"] or "",
        opened_at=to_timestamp(r["opened_at"]), decided_at=to_timestamp(r["decided_at"]),
        resolve_call=resolve_call(r["id"]) if r["status"] == "open" else "")


def evidence_of(e: pb.Evidence) -> EvidenceIn:
    return EvidenceIn(e.quote, e.source_type, e.source_ref, e.captured_by)


class CortexServicer(GraphHandlers, KnowledgeHandlers, MergeHandlers,
                     rpc.CortexServiceServicer):
    def __init__(self, facts: FactStore, reader: FactReader, slots: SlotEditor,
                 review: Review, graph: Graph, recall: Recall,
                 knowledge: tuple[World, Lessons, TagRegistry, ReviewQueue],
                 merging: tuple[Merging, LessonMerger]) -> None:
        GraphHandlers.__init__(self, graph, recall, fact_message)
        KnowledgeHandlers.__init__(self, *knowledge, conflict_message)
        MergeHandlers.__init__(self, *merging)
        self._facts = facts
        self._pool = facts.pool
        self._reader = reader
        self._slots = slots
        self._review = review

    async def SetFact(self, request: pb.SetFactRequest, context: Any) -> pb.SetFactResponse:
        d = request.details
        details = {"scope": d.scope, "trigger_predicate": d.trigger_predicate,
                   "status_detail": d.status_detail,
                   "expected_lifetime_seconds": d.expected_lifetime_seconds,
                   "earned_by": d.earned_by, "risk_weight": d.risk_weight, "subject": d.subject}
        out = await self._facts.set(current_caller(), FactInput(
            entity=request.entity, attribute=request.attribute, value=request.value,
            kind=kind_name(request.kind) if request.kind else "STATE",
            evidence=evidence_of(request.evidence), origin=request.origin,
            valid_from=optional_datetime(request, "valid_from"),
            confidence=request.confidence, replaces=request.replaces,
            supersedes=request.supersedes, details=details, tags=list(request.tags),
            batch=request.batch))
        cid = uuid.UUID(out.conflict_id) if out.conflict_id else None
        return pb.SetFactResponse(
            action=out.action, fact=fact_message(out.fact, cid), conflict_id=out.conflict_id,
            related_id=out.related_id, reasserts_retired=out.reasserts_retired, lane=out.lane,
            note=out.note, resolve_call=out.resolve_call, unresolved_tags=out.unresolved_tags)

    async def GetFact(self, request: pb.GetFactRequest, context: Any) -> pb.GetFactResponse:
        as_of = optional_datetime(request, "as_of")
        answer = await self._reader.get(current_caller(), request.entity, request.attribute,
                                        as_of)
        current = served(answer.current, as_of)
        if not current:
            overall = "no fact in this slot" + (" at that time" if as_of else "")
        elif answer.set_valued:
            overall = f"set of {len(current)} current members"
        elif len(current) > 1:
            overall = "contested: no single current value"
        else:
            overall = current[0].label
        return pb.GetFactResponse(current=current, contenders=served(answer.contenders),
                                  label=overall, set_valued=answer.set_valued)

    async def FactHistory(self, request: pb.FactHistoryRequest,
                          context: Any) -> pb.FactHistoryResponse:
        rows = await self._reader.history(current_caller(), request.entity, request.attribute)
        return pb.FactHistoryResponse(facts=served(rows))

    async def RetractFact(self, request: pb.RetractFactRequest,
                          context: Any) -> pb.RetractFactResponse:
        done = await self._slots.retract(current_caller(), request.entity, request.attribute,
                                         request.value, request.reason)
        return pb.RetractFactResponse(retracted=len(done), ids=[str(r["id"]) for r in done])

    async def SetAdd(self, request: pb.SetMemberRequest, context: Any) -> pb.SetMemberResponse:
        out = await self._slots.add(
            current_caller(), request.entity, request.attribute, request.member,
            kind_name(request.kind) if request.kind else "STATE",
            evidence_of(request.evidence), request.origin)
        return pb.SetMemberResponse(action=out.action, fact=fact_message(out.fact),
                                    members=out.members,
                                    reasserts_retired=out.reasserts_retired)

    async def SetRemove(self, request: pb.SetMemberRequest,
                        context: Any) -> pb.SetMemberResponse:
        out = await self._slots.remove(current_caller(), request.entity, request.attribute,
                                       request.member, request.reason)
        return pb.SetMemberResponse(action=out.action, fact=fact_message(out.fact),
                                    members=out.members)

    async def ListConflicts(self, request: pb.ListConflictsRequest,
                            context: Any) -> pb.ListConflictsResponse:
        views = await self._review.list(current_caller(), request.status, request.limit)
        return pb.ListConflictsResponse(conflicts=[conflict_message(v) for v in views])

    async def ResolveConflict(self, request: pb.ResolveConflictRequest,
                              context: Any) -> pb.ResolveConflictResponse:
        view = await self._review.resolve(current_caller(), request.conflict_id,
                                          request.winner_id, request.both_stand,
                                          request.reasoning)
        return pb.ResolveConflictResponse(conflict=conflict_message(view))

    async def KnowledgeBriefing(self, request: pb.KnowledgeBriefingRequest,
                                context: Any) -> pb.KnowledgeBriefingResponse:
        rules, rules_total = await self._reader.briefing(current_caller(), request.rules)
        lessons, lessons_total = await self._lessons.briefing(current_caller(), request.lessons)
        return pb.KnowledgeBriefingResponse(
            rules=served(rules), rules_total=rules_total,
            lessons=[lesson_message(r) for r in lessons], lessons_total=lessons_total)

    async def SearchFacts(self, request: pb.SearchFactsRequest,
                          context: Any) -> pb.SearchFactsResponse:
        found = await self._reader.search(current_caller(), request.query, request.top_k)
        return pb.SearchFactsResponse(facts=served(found))

    async def RevertBatch(self, request: pb.RevertBatchRequest,
                          context: Any) -> pb.RevertBatchResponse:
        done = await journal.revert(self._pool, current_caller(), request.batch)
        return pb.RevertBatchResponse(batch=done.batch, rows=done.rows)

    async def ForgetBySource(self, request: pb.ForgetBySourceRequest,
                             context: Any) -> pb.ForgetBySourceResponse:
        done = await forget_by_source(self._pool, current_caller(), list(request.source_refs),
                                      request.reason)
        return pb.ForgetBySourceResponse(forgotten=done)

    async def AddAlias(self, request: pb.AddAliasRequest, context: Any) -> pb.AddAliasResponse:
        entity, alias = await self._review.add_alias(current_caller(), request.entity,
                                                     request.alias)
        return pb.AddAliasResponse(entity=entity, alias=alias)
