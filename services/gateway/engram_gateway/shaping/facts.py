"""Reply shapes for facts and conflicts (docs/architecture.md#reply-shapes)."""

from __future__ import annotations

from typing import Any, cast

from engram.v1 import cortex_pb2 as pb

from .common import iso_time

# items() is typed with plain ints; they are the FactKind values the fields hold.
KINDS = {cast(pb.FactKind, v): k.removeprefix("FACT_KIND_") for k, v in pb.FactKind.items() if v}
KIND_VALUES = {name: value for value, name in KINDS.items()}


def fact_item(f: pb.Fact, verbose: bool = False) -> dict[str, Any]:
    """The compact form served in search replies; `verbose` adds provenance
    and both time axes."""
    item: dict[str, Any] = {
        "id": f.id, "entity": f.entity, "attribute": f.attribute, "value": f.value,
        "kind": KINDS.get(f.kind, "UNSPECIFIED"), "verdict": f.verdict, "label": f.label,
        "evidence_quote": f.evidence.quote, "valid_from": iso_time(f, "valid_from"),
    }
    if f.conflict_id:
        item["conflict_id"] = f.conflict_id
    if f.score:  # search only: cosine when matched by meaning, else the text rank
        item["score"] = round(f.score, 5)
    if f.tags:
        item["tags"] = list(f.tags)
    if f.re_verify:
        item["re_verify"] = f.re_verify
    for key in ("reopen_trigger", "earned_by"):  # what an agent acts on: kept compact too
        if getattr(f.details, key):
            item[key] = getattr(f.details, key)
    if verbose:
        details = {k: v for k, v in (
            ("scope", f.details.scope), ("trigger_predicate", f.details.trigger_predicate),
            ("status_detail", f.details.status_detail),
            ("expected_lifetime_seconds", f.details.expected_lifetime_seconds),
            ("earned_by", f.details.earned_by), ("risk_weight", f.details.risk_weight),
            ("subject", f.details.subject), ("reopen_trigger", f.details.reopen_trigger)) if v}
        item |= {
            "origin": f.origin, "confidence": round(f.confidence, 3),
            "evidence": {"quote": f.evidence.quote, "source_type": f.evidence.source_type,
                         "source_ref": f.evidence.source_ref,
                         "captured_by": f.evidence.captured_by},
            "writer": f.writer_principal, "valid_to": iso_time(f, "valid_to"),
            "recorded_at": iso_time(f, "recorded_at"), "retired_at": iso_time(f, "retired_at"),
            "last_verified_at": iso_time(f, "last_verified_at"),
            "supersedes": f.supersedes or None, "superseded_by": f.superseded_by or None,
            "set_member": f.set_member, "details": details,
        }
    return item


def set_reply(r: pb.SetFactResponse) -> dict[str, Any]:
    reply: dict[str, Any] = {"action": r.action, "lane": r.lane, "fact": fact_item(r.fact),
                             "related_id": r.related_id or None}
    for key, value in (("conflict_id", r.conflict_id), ("resolve_call", r.resolve_call),
                       ("reasserts_retired", r.reasserts_retired), ("note", r.note),
                       ("unresolved_tags", list(r.unresolved_tags))):
        if value:
            reply[key] = value
    return reply


def get_reply(r: pb.GetFactResponse, verbose: bool) -> dict[str, Any]:
    return {"current": [fact_item(f, verbose) for f in r.current],
            "contenders": [fact_item(f, verbose) for f in r.contenders],
            "label": r.label, "set_valued": r.set_valued, "layer": "facts"}


def member_reply(r: pb.SetMemberResponse) -> dict[str, Any]:
    reply = {"action": r.action, "fact": fact_item(r.fact), "members": r.members}
    if r.reasserts_retired:
        reply["reasserts_retired"] = r.reasserts_retired
    return reply


def briefing_fact(f: pb.Fact) -> dict[str, Any]:
    """The compact form plus its writer: the briefing labels every item a
    peer wrote with its author."""
    return fact_item(f) | {"writer": f.writer_principal}


def briefing_conflict(c: pb.Conflict) -> dict[str, Any]:
    return conflict_item(c) | {"fact_a": briefing_fact(c.fact_a),
                               "fact_b": briefing_fact(c.fact_b)}


def conflict_item(c: pb.Conflict) -> dict[str, Any]:
    item = {"id": c.id, "lane": c.lane, "status": c.status,
            "fact_a": fact_item(c.fact_a), "fact_b": fact_item(c.fact_b),
            "opened_at": iso_time(c, "opened_at")}
    if c.status == "open":
        item["resolve_call"] = c.resolve_call
    else:
        item |= {"winner_id": c.winner_id or None, "reasoning": c.reasoning,
                 "decided_by": c.decided_by, "decided_at": iso_time(c, "decided_at")}
    return item
