"""The facts block that memory_search serves beside its entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram.v1.common_pb2 import QueryVector
from engram_kit.context import CallerContext
from engram_kit.errors import DomainError

from ..clients import Calls
from ..rpcs import CORTEX
from .facts import fact_item
from .knowledge import world_item

FACTS_UNAVAILABLE = "facts unavailable: the cortex did not answer; entries are served alone"


@dataclass(frozen=True)
class FactBlocks:
    facts: list[dict[str, Any]] = field(default_factory=list)
    world: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""


async def served_facts(backends: Calls, caller: CallerContext, query: str, top_k: int,
                       historical: bool, vector: QueryVector | None = None) -> FactBlocks:
    """The facts and world blocks of memory_search (the cortex matches
    both): live facts only, so a historical search (as_of /
    include_history) serves none rather than current ones."""
    if historical:
        return FactBlocks(note="facts block omitted: as_of/include_history read entries only")
    try:
        reply = await backends.call(CORTEX.SearchFacts, caller,
                                    pb.SearchFactsRequest(query=query, top_k=min(top_k, 10),
                                                          query_vector=vector))
    except DomainError:
        return FactBlocks(note=FACTS_UNAVAILABLE)
    # The writer, so a client can label each fact with its author (docs/hooks.md#peer-data).
    return FactBlocks([fact_item(f) | {"writer": f.writer_principal} for f in reply.facts],
                      [world_item(w) for w in reply.world])
