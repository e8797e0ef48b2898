"""Reply shapes (docs/architecture.md#reply-shapes): stable keys, compact unless verbose."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from engram.v1 import memory_pb2
from engram_kit.vocab import Finding

NOT_EMBEDDED = ("stored without vector: the embedder is unavailable; full-text search finds it "
                "now, and the re-embed sweep adds the vector once the embedder is back")


def parse_time(value: str | None, field: str) -> datetime | None:
    from mcp.server.mcpserver.exceptions import ToolError

    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{field} must be an ISO-8601 date or datetime, got {value[:40]!r}") \
            from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def iso_time(message: Any, field: str) -> str | None:
    """A protobuf Timestamp field as ISO-8601 UTC, or None when unset."""
    if not message.HasField(field):
        return None
    return getattr(message, field).ToDatetime().isoformat() + "Z"


def approx_tokens(payload: dict[str, Any]) -> int:
    """About 4 characters per token: enough for an agent to budget its context."""
    return len(json.dumps(payload, separators=(",", ":"))) // 4 + 1


def store_reply(resp: memory_pb2.StoreResponse) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "id": resp.id,
        "finding": Finding.from_wire(resp.finding),
        "related": list(resp.related),
        "superseded": list(resp.superseded),
        "embedded": resp.embedded,
    }
    notes = []
    if resp.contested_with:
        reply["contested_with"] = list(resp.contested_with)
        notes.append("held as contested: it disagrees with a stored memory and neither "
                     "replaces the other; both are served until one is superseded")
    if resp.HasField("reasserts_forgotten"):
        stone = resp.reasserts_forgotten
        reply["reasserts_forgotten"] = {
            "tombstone": stone.id, "reason": stone.reason,
            "forgotten_at": stone.forgotten_at.ToDatetime(tzinfo=UTC).isoformat()}
    if not resp.embedded:
        notes.append(NOT_EMBEDDED)
    if notes:
        reply["note"] = "; ".join(notes)
    return reply


def entry_item(e: memory_pb2.Entry, label: str, verbose: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": e.id, "text": e.text, "tags": list(e.tags), "source": e.source,
        "date": e.valid_from.ToDatetime(tzinfo=UTC).date().isoformat(), "label": label,
    }
    if verbose:
        item.update(origin=e.origin, created_at=e.created_at.ToDatetime(tzinfo=UTC).isoformat(),
                    valid_from=e.valid_from.ToDatetime(tzinfo=UTC).isoformat(),
                    writer=e.writer_principal, episode=e.episode, embedded=e.embedded,
                    status=e.status)
    return item


def get_reply(resp: memory_pb2.GetResponse) -> dict[str, Any]:
    reply = entry_item(resp.entry, resp.label, verbose=True)
    reply.update(
        superseded_by=resp.superseded_by or None, confirmations=resp.confirmations,
        versions=[{"version": v.version, "text": v.text, "by": v.changed_by, "reason": v.reason,
                   "status": v.status, "at": v.created_at.ToDatetime(tzinfo=UTC).isoformat()}
                  for v in resp.versions],
        links=[{"src": ln.src, "dst": ln.dst, "kind": ln.kind} for ln in resp.links],
    )
    return reply


def recent_reply(resp: memory_pb2.RecentResponse, verbose: bool) -> dict[str, Any]:
    reply: dict[str, Any] = {"entries": [entry_item(e, "current", verbose)
                                         for e in resp.entries]}
    reply["tokens"] = approx_tokens(reply)
    return reply


def _entry(hit: memory_pb2.SearchHit, verbose: bool, explain: bool) -> dict[str, Any]:
    item = entry_item(hit.entry, hit.label, verbose)
    item["score"] = round(hit.score, 5)
    if hit.contested_with:
        item["contested_with"] = list(hit.contested_with)
    if explain:
        t = hit.trace
        item["trace"] = {"dense_rank": t.dense_rank or None, "lexical_rank": t.lexical_rank or None,
                         "dense_distance": round(t.dense_distance, 5) if t.dense_rank else None,
                         "lexical_score": round(t.lexical_score, 5) if t.lexical_rank else None,
                         "rrf_score": round(t.rrf_score, 5),
                         "context_lift": round(t.context_lift, 5),
                         "episode_lift": round(t.episode_lift, 5),
                         "term_lift": round(t.term_lift, 5),
                         "identifier_lift": round(t.identifier_lift, 5),
                         "time_lift": round(t.time_lift, 5)}
    return item


def _search_trace(t: memory_pb2.SearchTrace) -> dict[str, Any]:
    return {
        "query_terms": [{"term": q.lexeme, "rows": q.rows, "used": q.used} for q in t.terms],
        "candidates": {"dense": t.dense_candidates, "lexical": t.lexical_candidates},
        "fusion": t.fusion,
        "not_served": [{"id": d.id, "text": d.text, "reason": d.reason,
                        **({"score": round(d.score, 5)} if d.score else {})} for d in t.dropped],
    }


def search_reply(resp: memory_pb2.SearchResponse, verbose: bool, explain: bool,
                 facts: list[dict[str, Any]], facts_note: str = "",
                 world: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "entries": [_entry(h, verbose, explain) for h in resp.hits],
        "facts": facts,
        "world": world or [],
        "layer": resp.layer or "entries",
        "mode": resp.mode,
        "notes": [n for n in (resp.note, facts_note) if n],
        "low_confidence": resp.low_confidence,
    }
    if resp.documents:
        reply["documents"] = document_items(resp.documents)
    if explain and resp.HasField("trace"):
        reply["trace"] = _search_trace(resp.trace)
    reply["tokens"] = approx_tokens(reply)
    return reply


def document_items(hits: Any) -> list[dict[str, Any]]:
    return [{"document_id": d.document_id, "chunk": d.ordinal, "text": d.text,
             "source": d.source, "title": d.title, "score": round(d.score, 5),
             "date": d.created_at.ToDatetime(tzinfo=UTC).date().isoformat(),
             "label": "document (verbatim source)"} for d in hits]


def briefing_reply(resp: memory_pb2.BriefingResponse) -> dict[str, Any]:
    """The episode recap of the briefing (briefing.py adds the other sections)."""
    return {
        "episodes": [{
            "id": e.id, "title": e.title, "parent": e.parent_id or None,
            "started": e.started_at.ToDatetime(tzinfo=UTC).isoformat(timespec="minutes"),
            "ended": e.ended_at.ToDatetime(tzinfo=UTC).isoformat(timespec="minutes")
            if e.HasField("ended_at") else None,
            "memories": e.entries, "latest": list(e.latest), "by": e.started_by}
            for e in resp.episodes],
        "truncated": resp.truncated,
    }


def rescue_reply(r: memory_pb2.RescueResponse) -> dict[str, Any]:
    return {"id": r.id, "was_archived": r.was_archived, "rescued_at": r.rescued_at.ToJsonString()}
