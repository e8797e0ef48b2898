"""Where a lone call's time goes: memory's own histograms time the embed
call and the transaction of each Store, and the transaction of each Search;
a search's one query encode is timed by the gateway, which sends the vector
to memory and the cortex (bench_peers reads them all)."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from engram_runner.stack import Stack

from ..helpers import call, mcp_client


def _stage_counts(stack: Stack) -> dict[tuple[str, str, str], float]:
    counts = {}
    for service in ("memory", "gateway"):
        base = stack.topology.services[service].ready_url.rsplit("/", 1)[0]
        text = httpx.get(f"{base}/metrics", timeout=5).text
        counts |= {(service, s.labels["method"], s.labels["stage"]): s.value
                   for fam in text_string_to_metric_families(text) for s in fam.samples
                   if s.name == "engram_rpc_stage_seconds_count"
                   and s.labels.get("service") == service}
    return counts


async def test_store_and_search_time_their_embed_and_transaction(stack: Stack):
    before = _stage_counts(stack)
    assert stack.first_token
    async with mcp_client(stack.mcp_url, stack.first_token) as client:
        await call(client, "memory_store", {"text": "the stage metrics test stores this"})
        await call(client, "memory_search", {"query": "stage metrics test"})
    after = _stage_counts(stack)
    for timed in (("memory", "Store", "embed"), ("memory", "Store", "transaction"),
                  ("gateway", "memory_search", "embed"), ("memory", "Search", "transaction")):
        grew = after.get(timed, 0) - before.get(timed, 0)
        assert grew >= 1, f"{timed} not timed"
