"""Reply shapes (DESIGN.md §12): stable keys, compact unless verbose."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from engram.v1 import memory_pb2

FINDING_NAMES = {
    memory_pb2.FINDING_NEW: "new",
    memory_pb2.FINDING_RESTATEMENT: "restatement",
    memory_pb2.FINDING_PARAPHRASE: "paraphrase",
    memory_pb2.FINDING_UPDATE: "update",
    memory_pb2.FINDING_CONFLICT: "conflict",
}
NOT_EMBEDDED = ("stored without vector: the embedder is unavailable; full-text search finds it "
                "now, and the re-embed sweep adds the vector once the embedder is back")
FACTS_NOT_BUILT = "canonical facts are not served yet: the cortex fact layer is not built (#4)"


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


def approx_tokens(payload: dict[str, Any]) -> int:
    """About 4 characters per token: enough for an agent to budget its context."""
    return len(json.dumps(payload, separators=(",", ":"))) // 4 + 1


def store_reply(resp: memory_pb2.StoreResponse) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "id": resp.id,
        "finding": FINDING_NAMES.get(resp.finding, "new"),
        "related": list(resp.related),
        "superseded": list(resp.superseded),
        "embedded": resp.embedded,
    }
    if not resp.embedded:
        reply["note"] = NOT_EMBEDDED
    return reply


def _entry(hit: memory_pb2.SearchHit, verbose: bool, explain: bool) -> dict[str, Any]:
    e = hit.entry
    item: dict[str, Any] = {
        "id": e.id,
        "text": e.text,
        "score": round(hit.score, 5),
        "tags": list(e.tags),
        "source": e.source,
        "date": e.valid_from.ToDatetime(tzinfo=UTC).date().isoformat(),
        "label": hit.label,
    }
    if verbose:
        item.update(origin=e.origin, created_at=e.created_at.ToDatetime(tzinfo=UTC).isoformat(),
                    valid_from=e.valid_from.ToDatetime(tzinfo=UTC).isoformat(),
                    writer=e.writer_principal, episode=e.episode, embedded=e.embedded)
    if explain:
        t = hit.trace
        item["trace"] = {"dense_rank": t.dense_rank or None, "lexical_rank": t.lexical_rank or None,
                         "dense_distance": round(t.dense_distance, 5) if t.dense_rank else None,
                         "lexical_score": round(t.lexical_score, 5) if t.lexical_rank else None,
                         "fusion": "reciprocal rank fusion"}
    return item


def search_reply(resp: memory_pb2.SearchResponse, verbose: bool, explain: bool) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "entries": [_entry(h, verbose, explain) for h in resp.hits],
        "facts": [],
        "layer": "entries",
        "mode": resp.mode,
        "notes": [n for n in (resp.note, FACTS_NOT_BUILT) if n],
    }
    reply["tokens"] = approx_tokens(reply)
    return reply
