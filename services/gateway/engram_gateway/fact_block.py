"""The facts block that memory_search serves beside its entries."""

from __future__ import annotations

from typing import Any

from engram.v1 import cortex_pb2 as pb
from engram_kit.context import CallerContext
from engram_kit.errors import DomainError

from .clients import Calls
from .shaping_facts import fact_item

FACTS_UNAVAILABLE = "facts unavailable: the cortex did not answer; entries are served alone"


async def served_facts(backends: Calls, caller: CallerContext, query: str, top_k: int,
                       historical: bool) -> tuple[list[dict[str, Any]], str]:
    """The facts block of memory_search: live facts only, so a historical
    search (as_of / include_history) serves none rather than current ones."""
    if historical:
        return [], "facts block omitted: as_of/include_history read entries only"
    try:
        reply = await backends.cortex("SearchFacts", caller,
                                      pb.SearchFactsRequest(query=query, top_k=min(top_k, 10)))
    except DomainError:
        return [], FACTS_UNAVAILABLE
    return [fact_item(f) for f in reply.facts], ""
