"""Registry entries for keeping the bank tidy: consolidation of near-duplicate
entries and the namespace's statistics."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from pydantic import Field

from engram.v1 import coordination_pb2, cortex_pb2, dreamer_pb2
from engram.v1 import memory_pb2 as pb

from ..rpcs import COORDINATION, CORTEX, DREAMER, MEMORY
from ..shaping.common import store_reply
from ..shaping.hygiene import candidates_reply, stats_reply
from .argtypes import ClusterLimit, EntryIds, MemoryText, Reason, Similarity
from .spec import (
    Access,
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


def memory_consolidation_candidates(
    min_similarity: Annotated[Similarity, Field(
        description="Cosine similarity to group at (0.5-1); 0: the default (0.85).")] = 0,
    limit: Annotated[ClusterLimit, Field(description="How many clusters (at most 20, "
                                "the default ENGRAM_CONSOLIDATION_MAX_CLUSTERS); 0: the "
                                "maximum.")] = 0,
    namespace: Namespace = None,
) -> None:
    """Clusters of live entries that say (nearly) the same thing: near-duplicates and
    paraphrases, each with why it was grouped (similarity, shared terms). Compares the
    newest live entries up to a cap (`truncated` says when more exist). Returns
    {clusters: [{entries, min_similarity, shared_terms, why}], scanned, truncated}.
    Merge a cluster with memory_consolidate."""


def memory_consolidate(
    entry_ids: Annotated[EntryIds, Field(description="The live entries to replace "
                                         "(2-20 ids).")],
    new_text: Annotated[MemoryText, Field(description="The one memory that replaces them.")],
    reason: Annotated[Reason, Field(description="Why they are merged (kept in history).")],
    namespace: Namespace = None,
    request_id: RequestId = "",
) -> None:
    """Consolidate: one new entry supersedes several live ones, in one transaction
    (all or nothing). Each old entry is kept as history pointing at the new one.
    Fails if any entry is missing or already retired. Returns {id, superseded, ...}."""


def memory_stats(namespace: Namespace = None) -> None:
    """This namespace at a glance: entries (live, archived, superseded, waiting for the
    dreamer), facts by kind and verdict, open review items, documents and chunks, the
    board, storage and searches/recalls over the last 24 h. Cheap: counts, no scans;
    `estimates` names the figures that are estimates."""


async def run_stats(inv: Invocation) -> dict[str, Any]:
    """One call per service, at once; the gateway only shapes."""
    m, c, b, d = await asyncio.gather(
        inv.calls.call(MEMORY.Stats, inv.caller, pb.MemoryStatsRequest()),
        inv.calls.call(CORTEX.Stats, inv.caller, cortex_pb2.CortexStatsRequest()),
        inv.calls.call(COORDINATION.BoardStats, inv.caller, coordination_pb2.BoardStatsRequest()),
        inv.calls.call(DREAMER.Stats, inv.caller, dreamer_pb2.DreamStatsRequest()))
    return stats_reply(m, c, b, d)


M = MEMORY
NO_ID = "00000000-0000-0000-0000-000000000000"  # examples: well-formed, matches nothing

TOOLS = [
    ToolSpec(memory_consolidation_candidates, Tier.FULL, {"": read(
        M.ConsolidationCandidates, shape=candidates_reply,
        build=lambda a: pb.ConsolidationCandidatesRequest(
            min_similarity=a["min_similarity"], limit=a["limit"]),
        rest="GET /v1/memories/consolidation-candidates")}),
    ToolSpec(memory_consolidate, Tier.FULL, {"": op(
        Access.WRITE, Effect.ADDITIVE, Retry.SAFE, "a repeat is refused (the entries are "
        "already superseded); with request_id it returns the first reply",
        rpc=M.Consolidate, shape=store_reply, keyed=True,
        rest="POST /v1/memories/consolidate",
        build=lambda a: pb.ConsolidateRequest(entry_ids=a["entry_ids"],
                                              new_text=a["new_text"], reason=a["reason"]))},
        example={"entry_ids": [NO_ID, "00000000-0000-0000-0000-000000000001"],
                 "new_text": "x", "reason": "r"}),
    ToolSpec(memory_stats, Tier.CORE, {"": read(run=run_stats, rest="GET /v1/stats")}),
]
