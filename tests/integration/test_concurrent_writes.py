"""Concurrent writes to one namespace through the real stack: stores,
supersedes, restatements and forgets over overlapping words, and lease
claims and messages among agents, at once. A write may be refused for a
reason the caller can act on (the entry was superseded meanwhile), but never
with a lock collision ("retry it") or an untyped internal error."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AsyncExitStack
from typing import Any

from mcp import Client
from mcp.types import TextContent

from engram_runner.stack import Stack

from ..helpers import call, mcp_client

WORDS = ["deploy", "billing", "runbook", "cache", "queue", "invoice", "alpha", "ledger"]
ROUNDS = 5
BAD = ("collided", "retry it", "internal error", "unavailable")


async def attempt(client: Client, tool: str, args: dict[str, Any]) -> str:
    """'' when the call succeeded, else the error text the agent saw."""
    result = await client.call_tool(tool, args)
    if not result.is_error:
        return ""
    first = result.content[0]
    return first.text if isinstance(first, TextContent) else str(first)


def bad(errors: list[str]) -> list[str]:
    return [e for e in errors if any(b in e.lower() for b in BAD)]


def sentence(tag: str, i: int) -> str:
    words = [WORDS[(i + k) % len(WORDS)] for k in range(5)]
    return f"{tag} note {i}: the {' '.join(words)} owner changed on day {i % 7}"


async def test_concurrent_memory_writes_never_collide(stack: Stack, agent_token: str):
    tag = uuid.uuid4().hex[:6]
    failed: list[str] = []
    async with AsyncExitStack() as es:
        clients = [await es.enter_async_context(mcp_client(stack.mcp_url, agent_token))
                   for _ in range(20)]
        seeded = [await call(clients[0], "memory_store", {"text": sentence(tag, i)})
                  for i in range(6)]
        ids = [s["id"] for s in seeded]
        for rnd in range(ROUNDS):
            jobs = []
            for n in range(40):
                c = clients[n % len(clients)]
                i = 100 * rnd + n
                if n % 5 == 0:
                    jobs.append(attempt(c, "memory_supersede", {
                        "entry_id": ids[n % len(ids)], "new_text": sentence(tag, i) + " fixed"}))
                elif n % 5 == 1:  # a restatement confirms the existing row
                    jobs.append(attempt(c, "memory_store", {"text": sentence(tag, n % 6)}))
                elif n % 10 == 2 and rnd:
                    jobs.append(attempt(c, "memory_forget", {
                        "entry_id": ids[(n + rnd) % len(ids)], "reason": "test"}))
                else:
                    jobs.append(attempt(c, "memory_store", {"text": sentence(tag, i)}))
            errs = [e for e in await asyncio.gather(*jobs) if e]
            failed += bad(errs)
    assert not failed, failed  # outside the clients' task groups, so it reads plainly


async def test_concurrent_board_writes_never_collide(stack: Stack, agent_token: str):
    names = [f"conc:{uuid.uuid4().hex[:6]}" for _ in range(3)]
    failed: list[str] = []
    async with AsyncExitStack() as es:
        clients = [await es.enter_async_context(
            mcp_client(stack.mcp_url, agent_token, session=f"s-{uuid.uuid4().hex[:8]}"))
            for _ in range(20)]
        ids = [(await call(c, "board_agents", {"action": "list"}))["self"]["id"]
               for c in clients]
        for _ in range(ROUNDS):
            jobs = []
            for n, c in enumerate(clients):
                jobs.append(attempt(c, "board_lease", {
                    "action": "claim", "name": names[0] if n % 2 else names[n % 3],
                    "ttl_seconds": 5}))
                jobs.append(attempt(c, "board_message", {
                    "action": "send", "to": ids[(n + 1) % len(ids)], "text": f"hi {n}"}))
                jobs.append(attempt(c, "board_lease", {"action": "release",
                                                       "name": names[n % 3]}))
            errs = [e for e in await asyncio.gather(*jobs) if e]
            failed += bad(errs)
    assert not failed, failed  # outside the clients' task groups, so it reads plainly
