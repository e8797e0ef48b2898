"""gRPC clients of memory (to read entries) and cortex (to write facts)."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

from engram.v1 import cortex_pb2, cortex_pb2_grpc, memory_pb2, memory_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.grpc_client import Caller, open_channel

from .settings import DreamerSettings


class Backends:
    def __init__(self, s: DreamerSettings) -> None:
        self._caller = Caller(s.internal_token.get_secret_value(),
                              default_timeout_s=s.call_timeout_s)
        self._memory_channel = open_channel(s.memory_addr)
        self._cortex_channel = open_channel(s.cortex_addr)
        self._memory = memory_pb2_grpc.MemoryServiceStub(self._memory_channel)
        self._facts = cortex_pb2_grpc.CortexFactsStub(self._cortex_channel)
        self._graph = cortex_pb2_grpc.CortexGraphStub(self._cortex_channel)
        self._knowledge = cortex_pb2_grpc.CortexKnowledgeStub(self._cortex_channel)
        self._review = cortex_pb2_grpc.CortexReviewStub(self._cortex_channel)

    @staticmethod
    def context(namespace: str) -> CallerContext:
        return CallerContext(principal="dreamer", namespace=namespace, client_id="dreamer",
                             session_id="dreamer")

    async def entry(self, namespace: str, entry_id: str) -> memory_pb2.GetResponse:
        """A peek: the dreamer reading an entry is not a use (decay)."""
        return await self._caller.call(self._memory.Get,
                                       memory_pb2.GetRequest(id=entry_id, peek=True),
                                       self.context(namespace), idempotent=True)

    async def archive_stale(self, namespace: str, unused_for_s: float, limit: int,
                            batch: str) -> list[str]:
        reply = await self._caller.call(self._memory.ArchiveStale, memory_pb2.ArchiveStaleRequest(
            unused_for_s=unused_for_s, limit=limit, batch=batch), self.context(namespace))
        return list(reply.archived)

    async def unarchive(self, namespace: str, batch: str) -> int:
        reply = await self._caller.call(self._memory.Unarchive,
                                        memory_pb2.UnarchiveRequest(batch=batch),
                                        self.context(namespace), idempotent=True)
        return reply.restored

    async def set_fact(self, namespace: str,
                       request: cortex_pb2.SetFactRequest) -> cortex_pb2.SetFactResponse:
        """Keyed: the caller's retry after a lost reply (the same key) gets the
        first reply instead of writing (or confirming) again."""
        ctx = dataclasses.replace(self.context(namespace),
                                  idempotency_key=f"dream/{request.batch}/{uuid.uuid4()}")
        return await self._caller.call(self._facts.SetFact, request, ctx, idempotent=True)

    async def revert(self, namespace: str, batch: str) -> Any:
        return await self._caller.call(self._facts.RevertBatch,
                                       cortex_pb2.RevertBatchRequest(batch=batch),
                                       self.context(namespace))

    async def history(self, namespace: str, entity: str) -> cortex_pb2.FactHistoryResponse:
        return await self._caller.call(self._facts.FactHistory,
                                       cortex_pb2.FactHistoryRequest(entity=entity),
                                       self.context(namespace), idempotent=True)

    async def relate(self, ctx: CallerContext,
                     request: cortex_pb2.RelateRequest) -> cortex_pb2.RelateResponse:
        """An approved proposal, written as the reviewer who approved it."""
        return await self._caller.call(self._graph.Relate, request, ctx,
                                       idempotent=bool(ctx.idempotency_key))

    async def near_duplicates(self, namespace: str,
                              entities: list[str]) -> cortex_pb2.NearDuplicatesResponse:
        return await self._caller.call(
            self._review.NearDuplicates, cortex_pb2.NearDuplicatesRequest(entities=entities),
            self.context(namespace), idempotent=True)

    async def retract(self, ctx: CallerContext, entity: str, attribute: str, value: str,
                      reason: str) -> int:
        """An approved fact merge: the duplicate goes, as the reviewer."""
        reply = await self._caller.call(self._facts.RetractFact, cortex_pb2.RetractFactRequest(
            entity=entity, attribute=attribute, value=value, reason=reason), ctx,
            idempotent=bool(ctx.idempotency_key))
        return reply.retracted

    async def merge_entities(self, ctx: CallerContext, merge: str, into: str,
                             reasoning: str) -> cortex_pb2.MergeEntitiesResponse:
        """An approved merge proposal, run as the reviewer who approved it."""
        return await self._caller.call(self._review.MergeEntities, cortex_pb2.MergeEntitiesRequest(
            merge=merge, into=into, reasoning=reasoning), ctx,
            idempotent=bool(ctx.idempotency_key))

    async def entry_clusters(self, namespace: str, min_similarity: float
                             ) -> memory_pb2.ConsolidationCandidatesResponse:
        return await self._caller.call(
            self._memory.ConsolidationCandidates,
            memory_pb2.ConsolidationCandidatesRequest(min_similarity=min_similarity),
            self.context(namespace), idempotent=True)

    async def consolidate(self, ctx: CallerContext, entry_ids: list[str], keep: str,
                          reasoning: str) -> memory_pb2.StoreResponse:
        """An approved entry merge, as the reviewer who approved it: one new
        entry with the current text of `keep` supersedes them all."""
        kept = await self._caller.call(self._memory.Get, memory_pb2.GetRequest(
            id=keep, peek=True), ctx, idempotent=True)
        return await self._caller.call(self._memory.Consolidate, memory_pb2.ConsolidateRequest(
            entry_ids=entry_ids, new_text=kept.entry.text, reason=reasoning[:500]), ctx,
            idempotent=bool(ctx.idempotency_key))

    async def merge_lessons(self, namespace: str, batch: str) -> int:
        reply = await self._caller.call(self._knowledge.MergeLessons,
                                        cortex_pb2.MergeLessonsRequest(batch=batch),
                                        self.context(namespace))
        return len(reply.merged)

    async def forget_sources(self, namespace: str, entry_ids: list[str],
                             reason: str) -> int:
        reply = await self._caller.call(
            self._facts.ForgetBySource,
            cortex_pb2.ForgetBySourceRequest(source_refs=entry_ids, reason=reason),
            self.context(namespace), idempotent=True)  # a repeat forgets nothing more
        return reply.forgotten

    async def flag_evidence(self, namespace: str, entry_ids: list[str], change: str,
                            by_entry: str) -> int:
        reply = await self._caller.call(
            self._facts.FlagEvidence,
            cortex_pb2.FlagEvidenceRequest(source_refs=entry_ids, change=change,
                                           by_ref=by_entry),
            self.context(namespace), idempotent=True)  # a repeat flags nothing more
        return reply.flagged

    async def close(self) -> None:
        await self._memory_channel.close()
        await self._cortex_channel.close()
