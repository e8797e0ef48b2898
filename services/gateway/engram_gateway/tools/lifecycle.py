"""Registry entries for correcting, retiring and erasing what was written:
documents, world facts, lessons, facts, mail, a writer's whole output, and
parked contenders decided by a reviewer. Their REST routes under /v1 are
generated (rest_registry.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from engram.v1 import common_pb2, memory_pb2
from engram.v1 import coordination_pb2 as board_pb
from engram.v1 import cortex_pb2 as pb
from engram_kit.timestamps import to_timestamp

from ..rpcs import COORDINATION, CORTEX, MEMORY
from ..shaping.common import parse_time
from ..shaping.facts import fact_item
from ..shaping.knowledge import lesson_item, world_item
from .argtypes import AttributeName, EntityName, IsoTime, PrincipalName, Reason, Reasoning, Uuid
from .spec import Access, Args, Effect, Invocation, Namespace, Retry, Tier, ToolSpec, op

Entity = Annotated[EntityName, Field(description="What it is about, e.g. 'billing-api'.")]
Attribute = Annotated[AttributeName, Field(description="Which property, e.g. 'database'.")]
NO_ID = "00000000-0000-0000-0000-000000000000"  # examples: well-formed, matches nothing


def document_forget(
    document_id: Annotated[Uuid, Field(description="The document's id (from document_ingest "
                                      "or a search hit).")],
    reason: Reason, namespace: Namespace = None,
) -> None:
    """Delete a document for good: its text, chunks, vectors and original file. A
    tombstone keeps who, why, when and a keyed digest (no words). Not reversible:
    needs the erase grant (reviewer or operator). Returns {document_id, chunks,
    tombstone_id}."""


def world_retract(
    entity: Entity, attribute: Attribute, reason: Reason,
    erase: Annotated[bool, Field(description="Delete every row of the slot, history too "
                                 "(a value that holds a secret); not restorable.")] = False,
    namespace: Namespace = None,
) -> None:
    """Withdraw the live world fact of a slot (a citation that was wrong). The row is
    kept as history and world_restore brings it back; with erase the slot's rows are
    deleted for good (that needs the erase grant: reviewer or operator). Returns
    {facts, erased}."""


def world_restore(entity: Entity, attribute: Attribute, reason: Reason,
                  namespace: Namespace = None) -> None:
    """Bring back the world fact(s) of a slot's last retraction (refused while the slot
    has a live value). Returns {facts}."""


def lesson_retire(
    lesson_id: Annotated[Uuid, Field(description="The lesson's id.")], reason: Reason,
    erase: Annotated[bool, Field(description="Delete it and the outcomes it was drawn "
                                 "from (words that hold a secret); not restorable.")] = False,
    namespace: Namespace = None,
) -> None:
    """Retire a lesson that is wrong or no longer holds: it leaves the briefing and
    search, kept as history; lesson_restore brings it back. With erase it is deleted
    with its outcomes (that needs the erase grant: reviewer or operator). Returns
    {lesson, erased}."""


def lesson_restore(lesson_id: Annotated[Uuid, Field(description="The lesson's id.")],
                   reason: Reason, namespace: Namespace = None) -> None:
    """Bring back a lesson retired by hand (refused while a live lesson says the same).
    Returns {lesson}."""


def fact_forget(
    entity: Entity, attribute: Attribute, reason: Reason,
    value: Annotated[str, Field(description="Only this value; empty: every fact of the "
                                "slot.")] = "",
    namespace: Namespace = None,
) -> None:
    """Erase facts for good (a value that holds a secret): every fact of the slot, or of
    one value, history included, with their conflicts and tombstones. Unlike
    fact_retract nothing is kept but an audit row with keyed digests. Needs the erase
    grant (reviewer or operator). Returns {erased}."""


def contender_decide(
    fact_id: Annotated[Uuid, Field(description="The parked contender's id (review_list).")],
    decision: Annotated[Literal["accept", "discard"], Field(
        description="accept: it replaces the current value | discard: it is tombstoned")],
    reasoning: Reasoning,
    namespace: Namespace = None,
) -> None:
    """Reviewer only: decide a parked contender (a value kept aside because a weaker
    source said it, or it reasserted a retired value). accept supersedes the current
    value (kept as history); discard withdraws it and tombstones its value.
    Returns {fact, superseded}."""


def forget_by_writer(
    principal: PrincipalName,
    reason: Reason,
    since: Annotated[IsoTime | None, Field(description="ISO time: written at or after.")] = None,
    until: Annotated[IsoTime | None, Field(description="ISO time: written before.")] = None,
    dry_run: Annotated[bool, Field(description="List what would change; write "
                                   "nothing.")] = False,
    namespace: Namespace = None,
) -> None:
    """Operator only: undo a rogue or broken agent. Forgets the memory entries and
    retracts the live facts one principal wrote in [since, until), at most the
    services' max rows per call each (`more` says when to call again). Returns
    {dry_run, entries: {ids, more}, facts: {ids, more}, limit}."""


def mail_forget(
    mail_id: Annotated[Uuid, Field(description="The message id (from a receipt or the "
                                  "inbox).")],
    reason: Reason, namespace: Namespace = None,
) -> None:
    """Erase a board message's body (one that holds a secret): its sender, its
    recipient or an operator may. The sender's or an operator's call erases every copy
    of the send. A keyed digest stays. Returns {erased}."""


def writer_request(a: Args) -> common_pb2.ForgetByWriterRequest:
    return common_pb2.ForgetByWriterRequest(
        principal=a["principal"], reason=a["reason"], dry_run=a["dry_run"],
        since=to_timestamp(parse_time(a["since"], "since")),
        until=to_timestamp(parse_time(a["until"], "until")))


async def run_forget_by_writer(inv: Invocation) -> dict[str, Any]:
    """Entries first: forgetting them also removes the facts drawn from them."""
    request = writer_request(inv.args)
    entries = await inv.calls.call(MEMORY.ForgetByWriter, inv.caller, request)
    facts = await inv.calls.call(CORTEX.ForgetByWriter, inv.caller, request)
    return {"dry_run": inv.args["dry_run"],
            "entries": {"ids": list(entries.ids), "more": entries.more},
            "facts": {"ids": list(facts.ids), "more": facts.more},
            "limit": {"entries": entries.limit, "facts": facts.limit}}


def world_reply(r: pb.WorldRetractResponse) -> dict[str, Any]:
    return {"facts": [world_item(f) for f in r.facts], "erased": r.erased}


def lesson_reply(r: pb.LessonRetireResponse) -> dict[str, Any]:
    return {"lesson": lesson_item(r.lesson) if r.HasField("lesson") else None,
            "erased": r.erased}


C, M, B = CORTEX, MEMORY, COORDINATION
W, D = Effect.ADDITIVE, Effect.DESTRUCTIVE
SLOT = {"entity": "registry-test", "attribute": "state", "reason": "test"}

TOOLS = [
    ToolSpec(document_forget, Tier.FULL, {"": op(
        Access.ERASE, D, Retry.SAFE, "a repeat finds the document gone",
        rpc=M.DocumentForget, rest="POST /v1/documents/{document_id}/forget",
        build=lambda a: memory_pb2.DocumentForgetRequest(document_id=a["document_id"],
                                                         reason=a["reason"]),
        shape=lambda r: {"document_id": r.document_id, "chunks": r.chunks,
                         "tombstone_id": r.tombstone_id})},
        example={"document_id": NO_ID, "reason": "test"}),
    ToolSpec(world_retract, Tier.FULL, {"": op(
        Access.WRITE, D, Retry.SAFE, "a repeat finds nothing live (or left) to retract",
        rpc=C.WorldRetract, shape=world_reply, erase_when="erase",
        build=lambda a: pb.WorldRetractRequest(entity=a["entity"], attribute=a["attribute"],
                                               reason=a["reason"], erase=a["erase"]))},
        example=SLOT),
    ToolSpec(world_restore, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.SAFE, "a repeat is refused: the slot is live again",
        rpc=C.WorldRestore, shape=world_reply,
        build=lambda a: pb.WorldRetractRequest(entity=a["entity"], attribute=a["attribute"],
                                               reason=a["reason"]))},
        example=SLOT),
    ToolSpec(lesson_retire, Tier.FULL, {"": op(
        Access.WRITE, D, Retry.SAFE, "a repeat is refused: the lesson is already retired",
        rpc=C.LessonRetire, shape=lesson_reply, erase_when="erase",
        build=lambda a: pb.LessonRetireRequest(lesson_id=a["lesson_id"], reason=a["reason"],
                                               erase=a["erase"]))},
        example={"lesson_id": NO_ID, "reason": "test"}),
    ToolSpec(lesson_restore, Tier.FULL, {"": op(
        Access.WRITE, W, Retry.SAFE, "a repeat is refused: the lesson is live",
        rpc=C.LessonRestore, shape=lesson_reply,
        build=lambda a: pb.LessonRetireRequest(lesson_id=a["lesson_id"], reason=a["reason"]))},
        example={"lesson_id": NO_ID, "reason": "test"}),
    ToolSpec(fact_forget, Tier.FULL, {"": op(
        Access.ERASE, D, Retry.SAFE, "a repeat finds nothing left to erase",
        rpc=C.FactForget, shape=lambda r: {"erased": list(r.ids)},
        build=lambda a: pb.FactForgetRequest(entity=a["entity"], attribute=a["attribute"],
                                             value=a["value"], reason=a["reason"]))},
        example=SLOT),
    ToolSpec(contender_decide, Tier.FULL, {"": op(
        Access.REVIEWER, D, Retry.SAFE, "a decided contender refuses a second decision",
        rpc=C.ContenderDecide, rest="POST /v1/review/contenders/{fact_id}/decide",
        build=lambda a: pb.ContenderDecideRequest(fact_id=a["fact_id"], decision=a["decision"],
                                                  reasoning=a["reasoning"]),
        shape=lambda r: {"fact": fact_item(r.fact), "superseded": list(r.superseded)})},
        example={"fact_id": NO_ID, "decision": "discard", "reasoning": "test"}),
    ToolSpec(forget_by_writer, Tier.FULL, {"": op(
        Access.OPERATOR, D, Retry.SAFE, "a repeat finds less left to change; dry_run "
        "writes nothing", run=run_forget_by_writer, rest="POST /v1/operator/forget-writer")},
        example={"principal": "registry-nobody", "reason": "test", "dry_run": True}),
    ToolSpec(mail_forget, Tier.FULL, {"": op(
        Access.WRITE, D, Retry.SAFE, "a repeat finds the body already gone",
        rpc=B.ForgetMessage, rest="POST /v1/board/messages/{mail_id}/forget",
        build=lambda a: board_pb.ForgetMessageRequest(id=a["mail_id"], reason=a["reason"]),
        shape=lambda r: {"erased": list(r.ids)})},
        example={"mail_id": NO_ID, "reason": "test"}),
]
