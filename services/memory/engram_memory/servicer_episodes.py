"""Replies of the episode RPCs and the briefing (MemoryServicer delegates to
these)."""

from __future__ import annotations

from typing import Any

from engram.v1 import memory_pb2
from engram_kit.context import current_caller
from engram_kit.timestamps import to_timestamp

from .episodes import Episode, Episodes
from .sessions import Summary

DEFAULT_BUDGET = 800
PER_EPISODE = 3


def _reply(ep: Episode) -> memory_pb2.EpisodeReply:
    return memory_pb2.EpisodeReply(id=str(ep.id), title=ep.title,
                                   parent_id=str(ep.parent_id or ""))


async def start(episodes: Episodes, request: Any) -> memory_pb2.EpisodeReply:
    return _reply(await episodes.start(current_caller(), request.title))


async def end(episodes: Episodes) -> memory_pb2.EpisodeReply:
    return _reply(await episodes.end(current_caller()))


async def title_session(episodes: Episodes, request: Any) -> memory_pb2.EpisodeReply:
    return _reply(await episodes.title_session(current_caller(), request.title))


async def briefing(episodes: Episodes, request: Any) -> memory_pb2.BriefingResponse:
    budget = request.token_budget or DEFAULT_BUDGET
    rows = await episodes.recent(current_caller(), 20, PER_EPISODE)
    recaps, used = [], 0
    for row in rows:
        cost = (len(row.title) + sum(len(t) for t in row.latest)) // 4 + 12
        if recaps and used + cost > budget:
            break
        used += cost
        recaps.append(memory_pb2.EpisodeRecap(
            id=str(row.id), title=row.title, parent_id=str(row.parent_id or ""),
            started_at=to_timestamp(row.started_at),
            ended_at=to_timestamp(row.ended_at), entries=row.entries,
            latest=list(row.latest), started_by=row.started_by))
    return memory_pb2.BriefingResponse(episodes=recaps, truncated=len(recaps) < len(rows))


def summary_reply(s: Summary) -> memory_pb2.EpisodeSummaryReply:
    return memory_pb2.EpisodeSummaryReply(
        id=str(s.id), title=s.title, summary=s.summary,
        started_at=to_timestamp(s.started_at), ended_at=to_timestamp(s.ended_at),
        entries=s.entries, pruned=s.pruned, session_id=s.session_id)
