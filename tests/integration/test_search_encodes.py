"""A memory_search asks the embedder for its query's vector once per
service: memory for the entries, the cortex once for both its facts and its
world facts (one encode serves the request either way: the embedder shares
identical query texts; each extra call costs an RPC on the search path)."""

from __future__ import annotations

import uuid

import httpx
from prometheus_client.parser import text_string_to_metric_families

from engram_cli.stack import Stack

from ..helpers import call, mcp_client


def embed_calls(stack: Stack) -> float:
    port = stack.topology.services["embedder"].ports[8763]
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return sum(s.value for fam in text_string_to_metric_families(text) for s in fam.samples
               if s.name == "engram_rpc_latency_seconds_count"
               and s.labels.get("method") == "Embed")


async def test_a_search_makes_one_embed_call_per_service(stack: Stack):
    ns = f"enc-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "memory_store", {"text": "Caroline moved to Denver.",
                                            "namespace": ns})
        seen = []
        # Other work of the shared stack may call the embedder meanwhile:
        # the fewest calls over a few searches is this search's own.
        for i in range(4):
            before = embed_calls(stack)
            await call(client, "memory_search", {"query": f"where does Caroline live {i}",
                                                 "namespace": ns})
            seen.append(embed_calls(stack) - before)
    assert min(seen) == 2, seen  # memory's and the cortex's
