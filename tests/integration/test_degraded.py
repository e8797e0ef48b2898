"""With the embedder down, writes still land (without a vector) and search
falls back to lexical and says so."""

from __future__ import annotations

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client


async def test_embedder_down_writes_land_and_search_says_lexical(stack: Stack, agent_token: str,
                                                                  admin_dsn: str):
    stack.stop_service("embedder")
    try:
        async with mcp_client(stack.mcp_url, agent_token) as client:
            stored = await call(client, "memory_store",
                                {"text": "Degraded mode: the fallback queue is named sidecar-q."})
            found = await call(client, "memory_search", {"query": "fallback queue sidecar-q"})
            doc = await call(client, "document_ingest", {
                "content": "Runbook. When the broker stalls, drain the sidecar-r queue first.",
                "source": "degraded-runbook"})
        # Checked while the embedder is still down: once it is back, the
        # re-embed sweep may fill the vector at any moment.
        assert await admin_fetchval(
            admin_dsn, "SELECT embedding IS NULL FROM memory.entries WHERE id = $1::uuid",
            stored["id"]) is True
    finally:
        stack.start_service("embedder")
        stack.wait_ready(["embedder"], 120)
    assert stored["embedded"] is False
    assert "without vector" in stored["note"]
    assert found["mode"] == "lexical"
    assert any("lexical" in n for n in found["notes"])
    assert found["entries"][0]["id"] == stored["id"]

    async def vector_filled() -> bool:
        return await admin_fetchval(
            admin_dsn, "SELECT embedding IS NOT NULL FROM memory.entries WHERE id = $1::uuid",
            stored["id"]) is True

    await eventually(vector_filled, 60, "the re-embed sweep to fill the vector")
    assert await admin_fetchval(admin_dsn, "SELECT count(*) FROM memory.embedding_queue") == 0
    async with mcp_client(stack.mcp_url, agent_token) as client:
        again = await call(client, "memory_search",
                           {"query": "fallback queue sidecar-q", "explain": True})
    assert doc["embedded"] is False and doc["chunks"] >= 1

    async def chunks_filled() -> bool:
        return await admin_fetchval(
            admin_dsn, "SELECT count(*) FROM memory.document_chunks WHERE document_id = $1::uuid"
            " AND embedding IS NULL", doc["id"]) == 0

    await eventually(chunks_filled, 60, "the re-embed sweep to fill the chunk vectors")
    assert await admin_fetchval(admin_dsn, "SELECT count(*) FROM memory.chunk_embedding_queue") == 0
    assert again["mode"] == "hybrid"
    assert again["entries"][0]["id"] == stored["id"]
    assert again["entries"][0]["trace"]["dense_rank"] == 1
