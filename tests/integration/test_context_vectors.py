"""Contextual vectors through the real stack (migrations 0020, 0021): a
reply whose meaning is in the line it answers is found by the dense channel
from a question about that line once its context vector is filled (after the
write is acknowledged), and forgetting the line drops its words from the
reply's second vector, even from a fill that read the line before."""

from __future__ import annotations

import uuid

import asyncpg
import numpy as np
from pgvector.asyncpg import register_vector

from engram_memory import repo_vector_queue as vq
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client
from .test_ranking import HIKES

LINE = "Melanie: Did you ever make it to the pottery workshop in Denver?"
REPLY = "Caroline: Yes, last Saturday! I made a lopsided bowl."
QUERY = "When did Caroline go to the pottery workshop in Denver?"


async def dense_distance(client, ns: str, entry_id: str) -> float:  # noqa: ANN001
    found = await call(client, "memory_search", {"query": QUERY, "explain": True,
                                                 "namespace": ns, "top_k": 20})
    assert "blended 0.5 with the context vector" in found["trace"]["fusion"]
    return {e["id"]: e["trace"]["dense_distance"] for e in found["entries"]}[entry_id]


async def context_filled(admin_dsn: str, entry_id: str) -> None:
    """The sweep fills the vector and empties the queue moments after the write."""
    async def filled() -> bool:
        return await admin_fetchval(
            admin_dsn, "SELECT e.context_embedding IS NOT NULL AND NOT EXISTS ("
            " SELECT 1 FROM memory.context_vector_queue q WHERE q.entry_id = e.id)"
            " FROM memory.entries e WHERE e.id = $1::uuid", entry_id) is True
    await eventually(filled, 30, "the context vector filled")


async def test_a_reply_is_found_by_a_question_about_the_line_it_answers(
        stack: Stack, admin_dsn: str):
    ns = f"ctx-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        for text in HIKES:  # other lines of Caroline's, outside the episode
            await call(client, "memory_store", {"text": text, "namespace": ns})
        await call(client, "episode_start", {"title": "catching up", "namespace": ns})
        line = await call(client, "memory_store", {"text": LINE, "namespace": ns})
        reply = await call(client, "memory_store", {"text": REPLY, "namespace": ns})
        await call(client, "episode_end", {"namespace": ns})
        await context_filled(admin_dsn, reply["id"])
        with_context = await dense_distance(client, ns, reply["id"])
        await call(client, "memory_forget", {"entry_id": line["id"], "namespace": ns,
                                             "reason": "test"})
        alone = await dense_distance(client, ns, reply["id"])
    # By its own words the reply is far from the question (cosine distance
    # ~0.55); its context vector, with the line it answers, is near (~0.3),
    # and the dense distance is the blend of the two.
    assert with_context < alone - 0.08
    # The forgotten line's words leave the reply's context vector with it.
    assert await admin_fetchval(
        admin_dsn, "SELECT context_embedding IS NULL AND context_of IS NULL"
        " AND context_of_prior IS NULL"
        " FROM memory.entries WHERE id = $1::uuid", reply["id"]) is True
    first = await admin_fetchval(
        admin_dsn, "SELECT context_embedding IS NULL FROM memory.entries"
        " WHERE id = $1::uuid", line["id"])
    assert first is None  # forgotten: the row is gone


async def test_a_superseded_line_stays_out_of_the_next_lines_context(
        stack: Stack, admin_dsn: str):
    ns = f"ctx-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "episode_start", {"title": "plans", "namespace": ns})
        old = await call(client, "memory_store", {
            "text": "Melanie: The pottery workshop is in Denver on Saturday.", "namespace": ns})
        new = await call(client, "memory_store", {
            "text": "Melanie: The pottery workshop moved to Boulder, Sunday.",
            "supersedes": old["id"], "namespace": ns})
        reply = await call(client, "memory_store", {"text": REPLY, "namespace": ns})
        await call(client, "episode_end", {"namespace": ns})
    # The live line before the reply is the correction; the superseded line
    # is no longer part of what the reply answers.
    refs = await admin_fetchval(
        admin_dsn, "SELECT array[context_of::text, coalesce(context_of_prior::text, '')]"
        " FROM memory.entries WHERE id = $1::uuid", reply["id"])
    assert refs == [new["id"], ""]


async def test_a_late_fill_does_not_bring_a_forgotten_lines_words_back(
        stack: Stack, admin_dsn: str):
    """The sweep reads a row's lines, encodes, then writes: a line forgotten
    in between must not reach the row through that write."""
    ns = f"ctx-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "episode_start", {"title": "catching up", "namespace": ns})
        line = await call(client, "memory_store", {"text": LINE, "namespace": ns})
        reply = await call(client, "memory_store", {"text": REPLY, "namespace": ns})
        await call(client, "episode_end", {"namespace": ns})
        await context_filled(admin_dsn, reply["id"])
        await call(client, "memory_forget", {"entry_id": line["id"], "namespace": ns,
                                             "reason": "test"})
    conn = await asyncpg.connect(admin_dsn, server_settings={"search_path": "memory,public"})
    try:
        await register_vector(conn)
        stale = (uuid.UUID(reply["id"]), np.ones(384, dtype=np.float32),
                 uuid.UUID(line["id"]), None)  # what the sweep read before the forget
        await vq.fill_contexts(conn, [stale])
        left = await conn.fetchval("SELECT context_embedding IS NULL FROM entries"
                                   " WHERE id = $1", uuid.UUID(reply["id"]))
    finally:
        await conn.close()
    assert left is True
