"""Randomized tenancy property: several principals write at random into their
own namespaces through many tools; afterwards no read path in any namespace
ever returns another namespace's data. Each namespace's writes carry a
secret string in their content (never in any read's arguments), reads ask
for the other namespaces' names and words, and every reply is searched for
foreign secrets."""

from __future__ import annotations

import asyncio
import json
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import TextContent

from engram_runner.stack import Stack

from ..helpers import mcp_client, result_text

WORDS = ["deploy", "database", "cache", "owner", "queue", "runbook", "latency", "schema"]


def writes(marker: str, secret: str, n: int, word: str) -> list[tuple[str, dict]]:
    entity = f"svc-{marker}-{n}"
    return [
        ("memory_store", {"text": f"The {word} of {entity} {marker} is {secret} value {n}."}),
        ("fact_set", {"entity": entity, "attribute": word, "value": f"{secret} {n}"}),
        # A parked contender: review_list serves it with its value.
        ("fact_set", {"entity": entity, "attribute": f"{word}_owner", "value": "someone",
                      "origin": "user"}),
        ("fact_set", {"entity": entity, "attribute": f"{word}_owner", "value": f"{secret} {n}",
                      "origin": "assistant", "replaces": True}),
        ("graph_relate", {"src": entity, "relation": "uses", "dst": f"dep-{secret}"}),
        ("world_set", {"entity": entity, "attribute": word, "value": f"{secret}",
                       "source_url": f"https://example.com/{secret}",
                       "source_quote": f"{secret} says {word}"}),
        ("outcome_record", {"task": f"fix {entity}", "outcome": "correction",
                            "detail": f"use {secret} for {word}"}),
        ("document_ingest", {"content": f"Notes on {entity} {marker}: {secret} {word}.",
                             "source": f"doc-{secret}-{n}"}),
        ("board_agents", {"action": "update", "status": f"working on {secret}"}),
    ]


def reads(foreign: str, word: str) -> list[tuple[str, dict]]:
    entity = f"svc-{foreign}-0"
    return [
        ("memory_search", {"query": f"{foreign} {word}"}),
        ("memory_recent", {"n": 50}),
        ("fact_get", {"entity": entity, "attribute": word}),
        ("fact_history", {"entity": entity}),
        ("graph_neighbors", {"entity": entity, "depth": 2}),
        ("memory_recall", {"query": f"{foreign} {word}", "hops": 2}),
        ("world_search", {"query": f"{foreign} {word}"}),
        ("lesson_search", {"query": f"fix {entity}"}),
        ("document_search", {"query": f"{foreign} {word}"}),
        ("board_agents", {"action": "list"}),
        ("board_lease", {"action": "list"}),
        ("conflict_list", {}),
        ("review_list", {}),
        ("briefing", {}),
        ("session_changes", {"since": "2000-01-01T00:00:00+00:00"}),
        ("memory_consolidation_candidates", {"min_similarity": 0.5}),
        ("memory_stats", {}),
    ]


def test_no_read_path_crosses_namespaces(stack: Stack):
    tenants = []
    for _ in range(3):
        marker, secret = f"mk{uuid.uuid4().hex[:8]}", f"sec{uuid.uuid4().hex[:8]}"
        ns = f"ten-{marker}"
        tenants.append((marker, secret, stack.principals.create(f"p-{ns}", "agent", [ns])))
    loop = asyncio.new_event_loop()
    leaks: list[str] = []
    wrote: set[int] = set()

    # hypothesis's enum metaclass __iter__ is unannotated: list(HealthCheck) is
    # a list of HealthCheck at run time, of HealthCheckMeta to pyright
    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # pyright: ignore[reportArgumentType]
    @given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(WORDS)), min_size=1,
                    max_size=4))
    def round_(plan: list[tuple[int, str]]) -> None:
        async def run() -> None:
            for n, (who, word) in enumerate(plan):
                marker, secret, token = tenants[who]
                async with mcp_client(stack.mcp_url, token, session=f"s-{marker}") as c:
                    for tool, args in writes(marker, secret, n, word):
                        result = await c.call_tool(tool, args)
                        assert not result.is_error, (tool, result_text(result))
                wrote.add(who)
            for me, (marker, secret, token) in enumerate(tenants):
                foreign = [t for i, t in enumerate(tenants) if i != me]
                async with mcp_client(stack.mcp_url, token) as c:
                    for other_marker, _, _ in foreign:
                        for tool, args in reads(other_marker, plan[0][1]):
                            result = await c.call_tool(tool, args)
                            text = json.dumps(result.structured_content) + " ".join(
                                getattr(x, "text", "") for x in result.content)
                            leaks.extend(f"{tool} in {marker}'s namespace shows {s}"
                                         for _, s, _ in foreign if s in text)
                    if me in wrote:
                        own = await c.call_tool("memory_search", {"query": f"{marker} value"})
                        assert any(isinstance(x, TextContent) and secret in x.text
                                   for x in own.content), "control: a namespace finds its own data"
        loop.run_until_complete(run())

    try:
        round_()
    finally:
        loop.close()
    assert not leaks, "\n".join(sorted(set(leaks))[:10])
