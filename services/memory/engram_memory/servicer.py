"""gRPC servicer: proto <-> domain translation only."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal, overload

from engram.v1 import common_pb2, memory_pb2, memory_pb2_grpc
from engram_kit.context import current_caller
from engram_kit.errors import InvalidArgument
from engram_kit.ranking import Channel
from engram_kit.timestamps import optional_datetime, to_timestamp
from engram_kit.writer_window import WriterWindow

from . import servicer_decay as decay_replies
from . import servicer_documents as document_replies
from . import servicer_episodes as episode_replies
from . import servicer_hygiene as hygiene_replies
from .consolidation import Consolidation
from .decay import Decay
from .documents import Documents
from .episodes import Episodes
from .erasure import Erasure
from .lifecycle import ForgetFilter, Lifecycle
from .search import Searcher, SearchInput, SearchResult, serving_label
from .service import MemoryService, StoreInput
from .servicer_common import entry_message, store_response
from .servicer_documents import document_hits
from .sessions import Sessions
from .stats import MemoryStats


@overload
def parse_id(value: str, field: str, *, required: Literal[True] = ...) -> uuid.UUID: ...
@overload
def parse_id(value: str, field: str, *, required: bool) -> uuid.UUID | None: ...
def parse_id(value: str, field: str, *, required: bool = True) -> uuid.UUID | None:
    if not value:
        if required:
            raise InvalidArgument(f"{field} is required", field=field)
        return None
    try:
        return uuid.UUID(value)
    except ValueError:
        raise InvalidArgument(f"{field} must be an entry id (a UUID), got {value[:40]!r}",
                              field=field) from None


def search_response(result: SearchResult, explain: bool) -> Any:
    hits = []
    for hit in result.hits:
        f = hit.fused
        trace = memory_pb2.RankTrace(
            dense_rank=f.ranks.get(Channel.DENSE, 0), lexical_rank=f.ranks.get(Channel.LEXICAL, 0),
            dense_distance=hit.dense_distance, lexical_score=hit.lexical_score,
            rrf_score=f.rrf, context_lift=f.context_lift, episode_lift=f.episode_lift,
            term_lift=f.term_lift, identifier_lift=f.identifier_lift, time_lift=f.time_lift,
        ) if explain else None
        hits.append(memory_pb2.SearchHit(
            entry=entry_message(hit.entry), score=f.score, label=hit.label, trace=trace,
            contested_with=[str(c) for c in hit.contested_with],
        ))
    t = result.trace
    trace = memory_pb2.SearchTrace(
        terms=[memory_pb2.QueryTerm(lexeme=q.lexeme, rows=q.rows, used=q.used) for q in t.terms],
        dense_candidates=t.dense_candidates, lexical_candidates=t.lexical_candidates,
        fusion=t.fusion, dropped=[memory_pb2.DroppedHit(id=str(d.id), text=d.text,
                                                        reason=d.reason, score=d.score)
                                  for d in t.dropped],
    ) if t is not None else None
    return memory_pb2.SearchResponse(hits=hits, mode=result.mode, note=result.note,
                                     documents=document_hits(result.documents),
                                     layer=result.layer, trace=trace,
                                     low_confidence=result.low_confidence)


@dataclass(frozen=True)
class MemoryDeps:
    service: MemoryService
    searcher: Searcher
    lifecycle: Lifecycle
    episodes: Episodes
    documents: Documents
    decay: Decay
    sessions: Sessions
    erasure: Erasure
    consolidation: Consolidation
    stats: MemoryStats


class MemoryServicer(memory_pb2_grpc.MemoryServiceServicer):
    def __init__(self, deps: MemoryDeps) -> None:
        self.service = deps.service
        self.searcher = deps.searcher
        self.lifecycle = deps.lifecycle
        self.episodes = deps.episodes
        self.documents = deps.documents
        self.decay = deps.decay
        self.sessions = deps.sessions
        self.erasure = deps.erasure
        self.consolidation = deps.consolidation
        self.stats = deps.stats

    async def Store(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC name)
        result = await self.service.store(current_caller(), StoreInput(
            text=request.text, source=request.source, tags=list(request.tags),
            origin=request.origin, episode=request.episode,
            valid_from=optional_datetime(request, "valid_from"),
            supersedes=parse_id(request.supersedes, "supersedes", required=False),
            reason=request.reason,
        ))
        return store_response(result)

    async def Search(self, request: Any, context: Any) -> Any:  # noqa: N802
        self.stats.searches.add(current_caller().require_namespace())
        result = await self.searcher.search(current_caller(), SearchInput(
            query=request.query, top_k=request.top_k, tags=list(request.tags),
            source=request.source, since=optional_datetime(request, "since"),
            until=optional_datetime(request, "until"), episode=request.episode,
            as_of=optional_datetime(request, "as_of"), include_history=request.include_history,
            explain=request.explain, query_vector=request.query_vector,
        ))
        return search_response(result, request.explain)

    async def Get(self, request: Any, context: Any) -> Any:  # noqa: N802
        detail = await self.lifecycle.get(current_caller(), parse_id(request.id, "id"),
                                          peek=request.peek)
        row = detail.entry
        return memory_pb2.GetResponse(
            entry=entry_message(row), label=serving_label(row, None),
            superseded_by=str(row.superseded_by or ""), confirmations=row.confirmations,
            versions=[memory_pb2.Version(
                version=v.version, text=v.text, changed_by=v.changed_by,
                reason=v.reason, status=v.status, created_at=to_timestamp(v.created_at))
                for v in detail.versions],
            links=[memory_pb2.Link(src=str(ln.src), dst=str(ln.dst), kind=ln.kind)
                   for ln in detail.links],
        )

    async def Recent(self, request: Any, context: Any) -> Any:  # noqa: N802
        rows = await self.lifecycle.recent(current_caller(), request.n, list(request.tags),
                                           request.source)
        return memory_pb2.RecentResponse(entries=[entry_message(r) for r in rows])

    async def Supersede(self, request: Any, context: Any) -> Any:  # noqa: N802
        result = await self.lifecycle.supersede(
            current_caller(), parse_id(request.entry_id, "entry_id"), request.new_text,
            request.reason)
        return store_response(result)

    async def Forget(self, request: Any, context: Any) -> Any:  # noqa: N802
        what = ForgetFilter(parse_id(request.entry_id, "entry_id", required=False),
                            list(request.tags), request.source,
                            optional_datetime(request, "before"))
        result = await self.lifecycle.forget(current_caller(), what, request.reason)
        return memory_pb2.ForgetResponse(forgotten=[str(i) for i in result.forgotten],
                                         tombstones=[str(t) for t in result.tombstones])

    async def Reinforce(self, request: Any, context: Any) -> Any:  # noqa: N802
        entry_id = parse_id(request.entry_id, "entry_id")
        count = await self.lifecycle.reinforce(current_caller(), entry_id)
        return memory_pb2.ReinforceResponse(id=str(entry_id), confirmations=count)

    async def EpisodeStart(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await episode_replies.start(self.episodes, request)

    async def EpisodeEnd(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await episode_replies.end(self.episodes)

    async def SessionTitle(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await episode_replies.title_session(self.episodes, request)

    async def Briefing(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await episode_replies.briefing(self.episodes, request)

    async def SessionClose(self, request: Any, context: Any) -> Any:  # noqa: N802
        return episode_replies.summary_reply(
            await self.sessions.close(current_caller(), request.title))

    async def EpisodeSummary(self, request: Any, context: Any) -> Any:  # noqa: N802
        return episode_replies.summary_reply(
            await self.sessions.summary(current_caller(), parse_id(request.id, "id")))

    async def DocumentIngest(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await document_replies.ingest(self.documents, request)

    async def DocumentSearch(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await document_replies.search(self.documents, request)

    async def DocumentGet(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await document_replies.get(self.documents, request)

    async def Rescue(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await decay_replies.rescue(self.decay, request)

    async def ArchiveStale(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await decay_replies.archive_stale(self.decay, request)

    async def Unarchive(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await decay_replies.unarchive(self.decay, request)

    async def DocumentForget(self, request: Any, context: Any) -> Any:  # noqa: N802
        done = await self.erasure.forget_document(
            current_caller(), request.document_id, request.reason)
        return memory_pb2.DocumentForgetResponse(
            document_id=str(done.document_id), chunks=done.chunks,
            tombstone_id=str(done.tombstone))

    async def ForgetByWriter(self, request: Any, context: Any) -> Any:  # noqa: N802
        done = await self.erasure.forget_by_writer(current_caller(), WriterWindow.of(request))
        return common_pb2.ForgetByWriterResponse(ids=[str(i) for i in done.ids],
                                                 more=done.more, limit=done.limit)
    async def ConsolidationCandidates(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await hygiene_replies.candidates(self.consolidation, request)

    async def Consolidate(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await hygiene_replies.consolidate(self.consolidation, request)

    async def Stats(self, request: Any, context: Any) -> Any:  # noqa: N802
        return await hygiene_replies.stats(self.stats, request)
