"""The Embed RPCs of one memory_search: one. The gateway encodes the query
and passes the vector to memory and the cortex (which serves its facts and
world blocks by it); in a namespace that holds no facts the cortex does not
search at all (an index probe says so; read per call, so the first fact to
land is searched at once)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from mcp import Client
from prometheus_client.parser import text_string_to_metric_families

from engram_runner.stack import Stack

from ..helpers import call, mcp_client


def embed_calls(stack: Stack) -> float:
    port = stack.topology.services["embedder"].ports[8763]
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return sum(s.value for fam in text_string_to_metric_families(text) for s in fam.samples
               if s.name == "engram_rpc_latency_seconds_count"
               and s.labels.get("method") == "Embed")


async def fewest_encodes(stack: Stack, client: Client, ns: str,
                         query: str) -> tuple[float, dict[str, Any]]:
    """Other work of the shared stack may call the embedder meanwhile: the
    fewest calls over a few searches is a search's own."""
    seen, reply = [], {}
    for i in range(4):
        before = embed_calls(stack)
        reply = await call(client, "memory_search", {"query": f"{query} {i}", "namespace": ns})
        seen.append(embed_calls(stack) - before)
    return min(seen), reply


async def test_a_search_in_a_namespace_without_facts_encodes_once(stack: Stack):
    ns = f"enc-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "memory_store", {"text": "Caroline moved to Denver.",
                                            "namespace": ns})
        encodes, reply = await fewest_encodes(stack, client, ns, "where does Caroline live")
        assert encodes == 1
        assert reply["entries"] and reply["facts"] == [] and reply["world"] == []


async def test_the_first_fact_is_searched_at_once(stack: Stack):
    ns = f"enc-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "memory_search", {"query": "release train day", "namespace": ns})
        await call(client, "fact_set", {"entity": "release-train", "attribute": "day",
                                        "value": "Thursday", "namespace": ns})
        encodes, reply = await fewest_encodes(stack, client, ns, "release train day")
        assert encodes == 1  # the gateway's, passed to memory and the cortex
        assert [f["value"] for f in reply["facts"]] == ["Thursday"]
    # The gateway times its encode for the benchmarks' breakdown of a search.
    metrics = httpx.get(stack.mcp_url.rsplit("/mcp", 1)[0] + "/metrics", timeout=10).text
    assert any(s.name == "engram_rpc_stage_seconds_count" and s.value >= 4
               and s.labels.get("service") == "gateway" and s.labels.get("stage") == "embed"
               for fam in text_string_to_metric_families(metrics) for s in fam.samples)


async def test_a_world_fact_alone_is_searched(stack: Stack):
    ns = f"enc-{uuid.uuid4().hex[:6]}"
    lib = f"lib{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "memory_search", {"query": f"{lib} version", "namespace": ns})
        await call(client, "world_set", {
            "entity": lib, "attribute": "latest_version", "value": "2.0", "namespace": ns,
            "source_url": f"https://pypi.org/project/{lib}",
            "source_quote": f"{lib} 2.0 released"})
        reply = await call(client, "memory_search", {"query": f"{lib} latest version",
                                                     "namespace": ns})
        assert [w["value"] for w in reply["world"]] == ["2.0"]


async def fewest_store_encodes(stack: Stack, client: Client, args: list[dict[str, Any]]
                               ) -> tuple[float, list[dict[str, Any]]]:
    """The fewest Embed calls over the given stores (as for searches: other
    work of the shared stack may encode meanwhile)."""
    seen, replies = [], []
    for one in args:
        before = embed_calls(stack)
        replies.append(await call(client, "memory_store", one))
        seen.append(embed_calls(stack) - before)
    return min(seen), replies


async def test_a_replayed_or_restated_store_never_encodes(stack: Stack):
    """A store takes the exits that need no vector (the replay of a retried
    request, the restatement of a live entry) before it encodes."""
    ns = f"enc-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        texts = [f"The staging VPN {i} needs cert {uuid.uuid4().hex[:6]}." for i in range(4)]
        firsts = [await call(client, "memory_store", {"text": t, "namespace": ns,
                                                      "request_id": f"s-{i}"})
                  for i, t in enumerate(texts)]
        replayed, replies = await fewest_store_encodes(stack, client, [
            {"text": t, "namespace": ns, "request_id": f"s-{i}"} for i, t in enumerate(texts)])
        assert replayed == 0
        assert replies == firsts  # each retry is answered, not redone
        restated, replies = await fewest_store_encodes(stack, client, [
            {"text": t.upper(), "namespace": ns} for t in texts])
        assert restated == 0
        assert [r["finding"] for r in replies] == ["restatement"] * 4
        assert [r["id"] for r in replies] == [r["id"] for r in firsts]
        new, _ = await fewest_store_encodes(stack, client, [
            {"text": f"A new line {i}.", "namespace": ns} for i in range(2)])
        assert new >= 1  # the count does see a store's encode
