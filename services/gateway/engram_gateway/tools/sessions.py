"""Registry entries for sessions: closing a session's episode, an episode's
summary, and what changed since the last turn (the prompt hook's note)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from engram.v1 import coordination_pb2, cortex_pb2
from engram.v1 import memory_pb2 as pb
from engram_kit.errors import DomainError

from ..rpcs import COORDINATION, CORTEX, MEMORY
from ..shaping.board import inbox_reply
from ..shaping.common import iso_time
from .argtypes import ChangesCursor, Title, Uuid
from .spec import (
    Access,
    Effect,
    Invocation,
    Namespace,
    RestHook,
    Retry,
    Tier,
    ToolSpec,
    op,
    read,
)

# New mail listed in one session_changes reply.
MAIL = 5


def session_close(
    title: Annotated[Title, Field(description="A title for the session (max 200 chars); "
                                "empty: taken from its own memories.")] = "",
    namespace: Namespace = None,
) -> None:
    """Close this session's episode (and the task episodes open inside it) with a title
    and an extractive summary of its own memories; one with no memories is removed
    (pruned=true). A later write within the reopen window reopens it. Closing a closed
    session returns it. Returns {id, title, summary, entries, pruned, ...}."""


def episode_summary(
    id: Annotated[Uuid, Field(description="The episode id.")],
    namespace: Namespace = None,
) -> None:
    """An episode's title and extractive summary (sentences of its own memories, with
    those of the episodes nested in it); an open episode's is computed now. Returns
    {id, title, summary, started_at, ended_at (null: open), entries, session}."""


def session_changes(
    since: Annotated[ChangesCursor, Field(description="The cursor of the previous reply; empty: "
                                "no changes, just a cursor.")] = "",
    namespace: Namespace = None,
) -> None:
    """What changed since `since` that this session should know: facts it read (fact_get,
    fact_search) that another session superseded, retired or contested; how many
    conflicts opened; board mail that arrived. Returns {facts, conflicts_opened, mail,
    cursor}: pass cursor as `since` next time."""


def summary_reply(r: pb.EpisodeSummaryReply) -> dict[str, Any]:
    return {"id": r.id, "title": r.title, "summary": r.summary,
            "started_at": iso_time(r, "started_at"), "ended_at": iso_time(r, "ended_at"),
            "entries": r.entries, "pruned": r.pruned, "session": r.session_id}


def _after(message: Any, since: datetime) -> bool:
    return message.sent_at.ToDatetime(tzinfo=UTC) > since


async def _mail(inv: Invocation, since: str) -> tuple[list[dict[str, Any]], str]:
    if not since:
        return [], ""
    try:
        inbox = await inv.calls.call(COORDINATION.ReceiveMessages, inv.caller,
                                     coordination_pb2.ReceiveMessagesRequest(limit=MAIL))
    except DomainError as exc:
        return [], f"coordination: {exc.message}"
    at = datetime.fromisoformat(since)  # cortex validated it
    fresh = [m for m in inbox.messages if _after(m, at)]
    items = inbox_reply(coordination_pb2.ReceiveMessagesResponse(messages=fresh))["messages"]
    return [{k: m[k] for k in ("id", "from", "from_principal", "text", "sent_at")}
            for m in items], ""


async def run_changes(inv: Invocation) -> dict[str, Any]:
    since = inv.args["since"].strip()
    facts = await inv.calls.call(CORTEX.SessionChanges, inv.caller,
                                 cortex_pb2.SessionChangesRequest(since=since))
    mail, unavailable = await _mail(inv, since)
    return {"facts": [{"entity": c.entity, "attribute": c.attribute, "value": c.value,
                       "change": c.change, "new_value": c.new_value or None, "by": c.by or None,
                       "conflict_id": c.conflict_id or None, "fact_id": c.fact_id}
                      for c in facts.changes],
            "conflicts_opened": facts.conflicts_opened, "mail": mail,
            "unavailable": {"board_mail": unavailable} if unavailable else {},
            "cursor": facts.cursor}


TOOLS = [
    ToolSpec(session_close, Tier.FULL, {"": op(
        Access.WRITE, Effect.ADDITIVE, Retry.SAFE, "closing a closed session returns it",
        rpc=MEMORY.SessionClose, shape=summary_reply,
        build=lambda a: pb.EpisodeRequest(title=a["title"]), rest="POST /v1/session/close",
        rest_hook=RestHook.SESSION_CLOSE)}),
    ToolSpec(episode_summary, Tier.CORE, {"": read(
        MEMORY.EpisodeSummary, shape=summary_reply,
        build=lambda a: pb.EpisodeSummaryRequest(id=a["id"]),
        rest="GET /v1/episodes/{episode_id}/summary", rest_names={"id": "episode_id"})},
        example={"id": "00000000-0000-0000-0000-000000000000"}),
    ToolSpec(session_changes, Tier.FULL, {"": read(run=run_changes,
                                                   rest="GET /v1/session/changes",
                                                   rest_hook=RestHook.SESSION_SEEN)}),
]

