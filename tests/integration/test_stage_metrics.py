"""Where a lone call's time goes: memory's own histograms time the embed
call and the transaction of each Store and Search (bench_peers reads them)."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from engram_cli.stack import Stack

from ..helpers import call, mcp_client


def _stage_counts(stack: Stack) -> dict[tuple[str, str], float]:
    base = stack.topology.services["memory"].ready_url.rsplit("/", 1)[0]
    text = httpx.get(f"{base}/metrics", timeout=5).text
    return {(s.labels["method"], s.labels["stage"]): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples
            if s.name == "engram_rpc_stage_seconds_count" and s.labels.get("service") == "memory"}


async def test_store_and_search_time_their_embed_and_transaction(stack: Stack):
    before = _stage_counts(stack)
    assert stack.first_token
    async with mcp_client(stack.mcp_url, stack.first_token) as client:
        await call(client, "memory_store", {"text": "the stage metrics test stores this"})
        await call(client, "memory_search", {"query": "stage metrics test"})
    after = _stage_counts(stack)
    for method in ("Store", "Search"):
        for stage in ("embed", "transaction"):
            grew = after.get((method, stage), 0) - before.get((method, stage), 0)
            assert grew >= 1, f"{method} {stage} not timed"
