"""Registry entries for memories: store, search and a memory's lifecycle."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from pydantic import Field

from engram.v1 import memory_pb2 as pb
from engram_kit.timestamps import to_timestamp

from ..rpcs import MEMORY
from ..shaping.common import (
    get_reply,
    parse_time,
    recent_reply,
    rescue_reply,
    search_reply,
    store_reply,
)
from ..shaping.fact_block import served_facts
from .argtypes import (
    EntryId,
    Episode,
    IsoTime,
    MemoryText,
    OptionalUuid,
    Origin,
    Source,
    Tags,
    plain_arg,
    text_arg,
)
from .spec import (
    Access,
    Args,
    Effect,
    Invocation,
    Namespace,
    RequestId,
    Retry,
    Tier,
    ToolSpec,
    op,
    read,
)

Since = Annotated[IsoTime | None, Field(description="ISO date: valid from on/after.")]
Until = Annotated[IsoTime | None, Field(description="ISO date: valid from before.")]


def memory_store(
    text: MemoryText,
    source: Source = "",
    tags: Annotated[Tags | None, Field(description="Lowercase dotted tags.")] = None,
    origin: Annotated[Origin, Field(description="user | agent | assistant | action")] = "agent",
    episode: Annotated[Episode, Field(description="Episode/session label.")] = "",
    valid_from: Annotated[IsoTime | None, Field(description="ISO date it became true.")] = None,
    supersedes: Annotated[OptionalUuid, Field(description="Id of the entry this replaces.")] = "",
    namespace: Namespace = None,
    request_id: RequestId = "",
) -> None:
    """Store a durable memory (a fact, decision, preference, lesson) after it is learned.

    Returns {id, finding, related, superseded, embedded}. finding says how it relates
    to what is stored: new; restatement (already known, nothing added); paraphrase
    (near-duplicate, linked in `related`); update (it corrects an entry, which is now
    superseded: pass `supersedes`, or phrase it as a correction); conflict (it disagrees
    with an entry and neither replaces the other: both kept, see `contested_with`).
    `reasserts_forgotten` is set when the same content was forgotten before."""


def store_request(a: Args) -> pb.StoreRequest:
    return pb.StoreRequest(text=a["text"], source=a["source"], tags=a["tags"] or [],
                           origin=a["origin"], episode=a["episode"],
                           valid_from=to_timestamp(parse_time(a["valid_from"], "valid_from")),
                           supersedes=a["supersedes"])


def memory_search(
    query: Annotated[str, text_arg(2000, "What you want to know, in natural words.")],
    top_k: Annotated[int, Field(ge=1, le=50, description="How many results (1-50).")] = 5,
    tags: Annotated[Tags | None, Field(description="Only entries with all tags.")] = None,
    source: Annotated[str, plain_arg(200, "Only entries from this source.")] = "",
    since: Since = None,
    until: Until = None,
    explain: Annotated[bool, Field(description="Include the ranking trace.")] = False,
    verbose: Annotated[bool, Field(description="Include provenance fields.")] = False,
    episode: Annotated[Episode, Field(description="Only entries of this episode.")] = "",
    as_of: Annotated[IsoTime | None, Field(description="ISO time: what was current then.")] = None,
    include_history: Annotated[bool, Field(
        description="Also superseded entries, labelled as such.")] = False,
    namespace: Namespace = None,
) -> None:
    """Search long-term memory before acting on anything you might already know.

    Hybrid retrieval (semantic + full-text, fused). Returns {entries, facts, world, layer,
    mode, notes, low_confidence, tokens}; `facts` and `world` are the matching live facts
    and cited world facts; each entry has id, text, score, tags, source, date,
    label. `low_confidence` is true when no entry served is close to the query. Only
    current entries are served unless `as_of` or `include_history` says otherwise;
    entries that disagree with another current entry are labelled `contested`."""


def search_request(a: Args) -> pb.SearchRequest:
    return pb.SearchRequest(
        query=a["query"], top_k=a["top_k"], tags=a["tags"] or [], source=a["source"],
        explain=a["explain"], since=to_timestamp(parse_time(a["since"], "since")),
        until=to_timestamp(parse_time(a["until"], "until")), episode=a["episode"],
        as_of=to_timestamp(parse_time(a["as_of"], "as_of")),
        include_history=a["include_history"])


async def run_search(inv: Invocation) -> dict[str, Any]:
    """Entries and, for a search of the present, the matching facts and world facts."""
    a = inv.args
    historical = bool(a["as_of"] or a["include_history"])
    request = search_request(a)
    # One encode for both services when both search (else memory encodes its own).
    vector = None if historical else await inv.calls.query_vector(inv.caller, a["query"])
    if vector is not None:
        request.query_vector.CopyFrom(vector)
    reply, blocks = await asyncio.gather(
        inv.calls.call(MEMORY.Search, inv.caller, request),
        served_facts(inv.calls, inv.caller, a["query"], a["top_k"], historical, vector))
    return search_reply(reply, a["verbose"], a["explain"], blocks.facts, blocks.note,
                        blocks.world)


def memory_get(id: EntryId, namespace: Namespace = None) -> None:
    """One entry with its provenance, version history and links (supersedes, related,
    contradicts). Works for superseded entries too; the label says what it is."""


def memory_recent(
    n: Annotated[int, Field(ge=1, le=50, description="How many (1-50).")] = 10,
    tags: Annotated[Tags | None, Field(description="Only entries with all tags.")] = None,
    source: Annotated[str, plain_arg(200, "Only entries from this source.")] = "",
    verbose: Annotated[bool, Field(description="Include provenance fields.")] = False,
    namespace: Namespace = None,
) -> None:
    """The newest current memories, newest first: {entries, tokens}."""


def memory_supersede(
    entry_id: EntryId, new_text: Annotated[str, text_arg(16000, "The corrected memory.")],
    reason: Annotated[str, plain_arg(500, "Why the old one is wrong or outdated.")] = "",
    namespace: Namespace = None,
) -> None:
    """Correct a memory: stores `new_text` and retires the entry it replaces (kept as
    history, never served as current). Fails if the entry is missing or already retired.
    Returns {id, superseded, ...}."""


def memory_forget(
    reason: Annotated[str, text_arg(500, "Why it must be forgotten (kept).")],
    entry_id: Annotated[OptionalUuid, Field(description="One entry to forget.")] = "",
    tags: Annotated[Tags | None, Field(description="Or: entries with all tags.")] = None,
    source: Annotated[str, plain_arg(200, "Or: entries from this source.")] = "",
    before: Annotated[IsoTime | None, Field(description="Or: entries valid before.")] = None,
    namespace: Namespace = None,
) -> None:
    """Delete memories for good (rows, vectors, full-text data) by id or by filter (at
    least one). A tombstone keeps who, why, when and a keyed digest (no words), so
    storing the same content later is reported as `reasserts_forgotten`.
    Returns {forgotten, tombstones}."""


def forget_request(a: Args) -> pb.ForgetRequest:
    return pb.ForgetRequest(entry_id=a["entry_id"], tags=a["tags"] or [], source=a["source"],
                            reason=a["reason"],
                            before=to_timestamp(parse_time(a["before"], "before")))


def memory_reinforce(entry_id: EntryId, namespace: Namespace = None,
                     request_id: RequestId = "") -> None:
    """Mark a memory as confirmed useful again: {id, confirmations}."""


def memory_rescue(
    entry_id: EntryId,
    reason: Annotated[str, plain_arg(500, "Why it matters (kept with the rescue).")] = "",
    namespace: Namespace = None,
) -> None:
    """Bring an archived memory back into search, or protect a live one: a rescued
    entry is never archived by a later dream pass. {id, was_archived, rescued_at}."""


M = MEMORY
W, D = Effect.ADDITIVE, Effect.DESTRUCTIVE
NO_ID = "00000000-0000-0000-0000-000000000000"  # examples: well-formed, matches nothing

TOOLS = [
    ToolSpec(memory_store, Tier.MINIMAL, {"": op(
        Access.WRITE, W, Retry.CONDITIONAL, "safe with request_id (without, a repeat is a "
        "restatement: same id, one more confirmation)",
        rpc=M.Store, build=store_request, shape=store_reply, keyed=True,
        rest="POST /v1/memories")}, example={"text": "the registry drives the gateway"}),
    ToolSpec(memory_search, Tier.MINIMAL, {"": read(
        M.Search, build=search_request, run=run_search,
        rest="GET /v1/memories/search")}, example={"query": "registry"}),
    ToolSpec(memory_get, Tier.CORE, {"": read(
        M.Get, build=lambda a: pb.GetRequest(id=a["id"]), shape=get_reply,
        rest="GET /v1/memories/{entry_id}", rest_names={"id": "entry_id"})},
        example={"id": NO_ID}),
    ToolSpec(memory_recent, Tier.CORE, {"": read(
        M.Recent, shape=recent_reply, shape_args=("verbose",),
        build=lambda a: pb.RecentRequest(n=a["n"], tags=a["tags"] or [], source=a["source"]),
        rest="GET /v1/memories/recent")}),
    ToolSpec(memory_supersede, Tier.CORE, {"": op(
        Access.WRITE, W, Retry.SAFE, "a repeat is refused: the entry is already superseded",
        rpc=M.Supersede, shape=store_reply,
        rest="POST /v1/memories/{entry_id}/supersede",
        build=lambda a: pb.SupersedeRequest(entry_id=a["entry_id"], new_text=a["new_text"],
                                            reason=a["reason"]))},
        example={"entry_id": NO_ID, "new_text": "x"}),
    ToolSpec(memory_forget, Tier.CORE, {"": op(
        Access.WRITE, D, Retry.SAFE, "a repeat finds nothing left to forget",
        rpc=M.Forget, build=forget_request,
        rest="POST /v1/memories/{entry_id}/forget", rest_args=("reason",),
        shape=lambda r: {"forgotten": list(r.forgotten), "tombstones": list(r.tombstones)})},
        example={"reason": "test", "entry_id": NO_ID}),
    ToolSpec(memory_reinforce, Tier.CORE, {"": op(
        Access.WRITE, W, Retry.CONDITIONAL, "safe with request_id (without, each call adds a "
        "confirmation)",
        rpc=M.Reinforce, keyed=True, build=lambda a: pb.ReinforceRequest(
            entry_id=a["entry_id"]),
        shape=lambda r: {"id": r.id, "confirmations": r.confirmations})},
        example={"entry_id": NO_ID}),
    ToolSpec(memory_rescue, Tier.CORE, {"": op(
        Access.WRITE, W, Retry.SAFE, "a rescued entry stays rescued",
        rpc=M.Rescue, shape=rescue_reply, rest="POST /v1/memories/{entry_id}/rescue",
        build=lambda a: pb.RescueRequest(entry_id=a["entry_id"], reason=a["reason"]))},
        example={"entry_id": NO_ID}),
]
