"""Reply shapes for the graph, world facts, lessons and dream runs."""

from __future__ import annotations

import json
from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram.v1 import dreamer_pb2

from .common import iso_time
from .facts import fact_item


def world_item(f: pb.WorldFact) -> dict[str, Any]:
    return {"id": f.id, "entity": f.entity, "attribute": f.attribute, "value": f.value,
            "citation": {"url": f.source_url, "quote": f.source_quote},
            "freshness": f.freshness, "confidence": round(f.confidence, 3),
            "effective_confidence": round(f.effective_confidence, 3), "stale": f.stale,
            "checked_at": iso_time(f, "checked_at")}


def lesson_item(x: pb.Lesson) -> dict[str, Any]:
    item = {"id": x.id, "polarity": x.polarity, "text": x.text, "task": x.task,
            "confidence": round(x.confidence, 3), "signals": x.signals,
            "subject_fact_ids": list(x.subject_fact_ids), "distilled_by": x.distilled_by}
    if x.re_verify:
        item["re_verify"] = "a fact this lesson rests on changed since: check it still holds"
    return item


def briefing_lesson(x: pb.Lesson) -> dict[str, Any]:
    """A lesson plus the principals whose outcomes its text is drawn from."""
    return lesson_item(x) | {"recorded_by": list(x.recorded_by)}


def edge_item(e: pb.Edge) -> dict[str, Any]:
    item: dict[str, Any] = {"src": e.src, "relation": e.relation, "dst": e.dst,
                            "provenance": e.provenance}
    if e.derived:
        item["derived"] = True
    else:
        item |= {"id": e.id, "evidence_quote": e.evidence_quote or None}
        if e.HasField("retired_at"):
            item["retired_at"] = iso_time(e, "retired_at")
    return item


def neighbors_reply(r: pb.NeighborsResponse) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "nodes": [{"entity": n.entity, "depth": n.depth,
                   "facts": [fact_item(f) for f in n.facts]} for n in r.nodes],
        "edges": [edge_item(e) for e in r.edges], "truncated": r.truncated}
    if r.path:
        reply["path"] = list(r.path)
        reply["path_edges"] = [edge_item(e) for e in r.path_edges]
    return reply


def run_item(r: dreamer_pb2.DreamRun) -> dict[str, Any]:
    return {"id": r.id, "status": r.status, "trigger": r.trigger, "extractor": r.extractor,
            "model": r.model or None, "started_at": iso_time(r, "started_at"),
            "finished_at": iso_time(r, "finished_at"), "entries": r.entries,
            "candidates": r.candidates, "facts_written": r.facts_written,
            "dropped_unanchored": r.dropped_unanchored, "quarantined": r.quarantined,
            "errors": r.errors, "proposals": r.proposals, "archived": r.archived,
            "counts": json.loads(r.counts_json or "{}"),
            "error_detail": r.error_detail or None}
