"""gRPC servicer of CortexFacts: proto <-> domain translation only."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import asyncpg

from engram.v1 import cortex_pb2 as pb
from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit.context import current_caller
from engram_kit.timestamps import optional_datetime

from . import journal, session_changes
from .facts import FactInput, FactStore
from .forget import forget_by_source
from .freshness import Freshness
from .messages import evidence_of, fact_message, kind_name, served, world_message
from .reads import FactReader
from .review import Review
from .slots import SlotEditor
from .world import World


@dataclass(frozen=True)
class FactsDeps:
    pool: asyncpg.Pool
    facts: FactStore
    reader: FactReader
    slots: SlotEditor
    review: Review  # owns entity aliases
    freshness: Freshness
    world: World  # memory_search's facts block serves world facts too


def _details(d: pb.KindDetails) -> dict[str, Any]:
    return {"scope": d.scope, "trigger_predicate": d.trigger_predicate,
            "status_detail": d.status_detail,
            "expected_lifetime_seconds": d.expected_lifetime_seconds,
            "earned_by": d.earned_by, "risk_weight": d.risk_weight, "subject": d.subject,
            "reopen_trigger": d.reopen_trigger}


class FactsServicer(rpc.CortexFactsServicer):
    def __init__(self, deps: FactsDeps) -> None:
        self._d = deps

    async def SetFact(self, request: pb.SetFactRequest, context: Any) -> pb.SetFactResponse:
        out = await self._d.facts.set(current_caller(), FactInput(
            entity=request.entity, attribute=request.attribute, value=request.value,
            kind=kind_name(request.kind) if request.kind else "STATE",
            evidence=evidence_of(request.evidence), origin=request.origin,
            valid_from=optional_datetime(request, "valid_from"),
            confidence=request.confidence, replaces=request.replaces,
            supersedes=request.supersedes, details=_details(request.details),
            tags=list(request.tags), batch=request.batch))
        cid = uuid.UUID(out.conflict_id) if out.conflict_id else None
        return pb.SetFactResponse(
            action=out.action, fact=fact_message(out.fact, cid), conflict_id=out.conflict_id,
            related_id=out.related_id, reasserts_retired=out.reasserts_retired, lane=out.lane,
            note=out.note, resolve_call=out.resolve_call, unresolved_tags=out.unresolved_tags)

    async def GetFact(self, request: pb.GetFactRequest, context: Any) -> pb.GetFactResponse:
        as_of = optional_datetime(request, "as_of")
        answer = await self._d.reader.get(current_caller(), request.entity, request.attribute,
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
        rows = await self._d.reader.history(current_caller(), request.entity,
                                            request.attribute)
        return pb.FactHistoryResponse(facts=served(rows))

    async def RetractFact(self, request: pb.RetractFactRequest,
                          context: Any) -> pb.RetractFactResponse:
        done = await self._d.slots.retract(current_caller(), request.entity, request.attribute,
                                           request.value, request.reason)
        return pb.RetractFactResponse(retracted=len(done), ids=done)

    async def SetAdd(self, request: pb.SetMemberRequest, context: Any) -> pb.SetMemberResponse:
        out = await self._d.slots.add(
            current_caller(), request.entity, request.attribute, request.member,
            kind_name(request.kind) if request.kind else "STATE",
            evidence_of(request.evidence), request.origin)
        return pb.SetMemberResponse(action=out.action, fact=fact_message(out.fact),
                                    members=out.members,
                                    reasserts_retired=out.reasserts_retired)

    async def SetRemove(self, request: pb.SetMemberRequest,
                        context: Any) -> pb.SetMemberResponse:
        out = await self._d.slots.remove(current_caller(), request.entity, request.attribute,
                                         request.member, request.reason)
        return pb.SetMemberResponse(action=out.action, fact=fact_message(out.fact),
                                    members=out.members)

    async def SearchFacts(self, request: pb.SearchFactsRequest,
                          context: Any) -> pb.SearchFactsResponse:
        caller = current_caller()
        if not await self._d.reader.searchable(caller, request.query, request.top_k):
            return pb.SearchFactsResponse()
        # One encode for both (memory_search's facts and world blocks).
        vector = await self._d.reader.query_vector(caller, request.query, request.top_k,
                                                   request.query_vector)
        found, world = await asyncio.gather(
            self._d.reader.search_by(caller, request.query, request.top_k, vector),
            self._d.world.search_by(caller, request.query, request.top_k, vector))
        return pb.SearchFactsResponse(facts=served(found),
                                      world=[world_message(v) for v in world])

    async def AddAlias(self, request: pb.AddAliasRequest, context: Any) -> pb.AddAliasResponse:
        entity, alias = await self._d.review.add_alias(current_caller(), request.entity,
                                                       request.alias)
        return pb.AddAliasResponse(entity=entity, alias=alias)

    async def ForgetBySource(self, request: pb.ForgetBySourceRequest,
                             context: Any) -> pb.ForgetBySourceResponse:
        done = await forget_by_source(self._d.pool, current_caller(),
                                      list(request.source_refs), request.reason)
        return pb.ForgetBySourceResponse(forgotten=done)

    async def RevertBatch(self, request: pb.RevertBatchRequest,
                          context: Any) -> pb.RevertBatchResponse:
        done = await journal.revert(self._d.pool, current_caller(), request.batch)
        return pb.RevertBatchResponse(batch=done.batch, rows=done.rows)

    async def VerifyFact(self, request: pb.VerifyFactRequest,
                         context: Any) -> pb.VerifyFactResponse:
        done = await self._d.freshness.verify(current_caller(), request.entity,
                                              request.attribute)
        return pb.VerifyFactResponse(facts=served(done))

    async def FlagEvidence(self, request: pb.FlagEvidenceRequest,
                           context: Any) -> pb.FlagEvidenceResponse:
        flagged = await self._d.freshness.flag(current_caller(), list(request.source_refs),
                                               request.change, request.by_ref)
        return pb.FlagEvidenceResponse(flagged=flagged)
    async def SessionChanges(self, request: pb.SessionChangesRequest,
                             context: Any) -> pb.SessionChangesResponse:
        found = await session_changes.since(self._d.pool, current_caller(), request.since)
        return pb.SessionChangesResponse(
            changes=[pb.FactChange(
                fact_id=str(r.id), entity=r.entity, attribute=r.attribute,
                value=r.value, change=r.change, new_value=r.new_value, by=r.by,
                conflict_id=str(r.conflict_id or "")) for r in found.facts],
            conflicts_opened=found.conflicts_opened, cursor=found.cursor.isoformat())
