"""Reply shapes for consolidation and memory_stats."""

from __future__ import annotations

from typing import Any

from engram.v1 import coordination_pb2, cortex_pb2, dreamer_pb2, memory_pb2

from .common import entry_item

ESTIMATES = ("storage_bytes (a namespace's share of each table's size, by the planner's "
             "row estimate); searches_24h and recalls_24h are counted by the serving "
             "process since it started")


def candidates_reply(r: memory_pb2.ConsolidationCandidatesResponse) -> dict[str, Any]:
    return {
        "clusters": [{
            "entries": [entry_item(m.entry, m.entry.status, False)
                        | {"similarity": round(m.similarity, 4)} for m in c.members],
            "min_similarity": round(c.min_similarity, 4),
            "shared_terms": list(c.shared_terms), "why": c.reason,
            "consolidate_call": "memory_consolidate(entry_ids=[...these ids], "
                                "new_text='...', reason='...')",
        } for c in r.clusters],
        "scanned": r.scanned, "truncated": r.truncated,
        "min_similarity": round(r.min_similarity, 4),
    }


def stats_reply(m: memory_pb2.MemoryStatsResponse, c: cortex_pb2.CortexStatsResponse,
                b: coordination_pb2.BoardStatsResponse,
                d: dreamer_pb2.DreamStatsResponse) -> dict[str, Any]:
    facts: dict[str, dict[str, int]] = {}
    for f in c.facts:
        facts.setdefault(f.kind.lower(), {})[f.verdict] = f.count
    return {
        "entries": {"live": m.entries_live, "archived": m.entries_archived,
                    "superseded": m.entries_superseded, "unembedded": m.entries_unembedded,
                    "pending_dream": d.pending_entries},
        "facts": facts,
        "review": {"open_conflicts": c.open_conflicts, "proposed_tags": c.proposed_tags,
                   "dreamer_proposals": d.open_proposals},
        "lessons": c.lessons,
        "documents": {"documents": m.documents, "chunks": m.chunks},
        "tombstones": m.tombstones,
        "board": {"agents": b.agents, "agents_active": b.agents_active,
                  "leases_held": b.leases_held, "lease_waiters": b.lease_waiters,
                  "mail_pending": b.mail_pending, "mail_acked_bodies": b.mail_acked_bodies},
        "storage_bytes": m.storage_bytes,
        "last_24h": {"searches": m.searches_24h, "recalls": c.recalls_24h},
        "estimates": ESTIMATES,
    }
