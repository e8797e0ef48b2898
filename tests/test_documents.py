"""Documents through MCP: verbatim ingest, chunk search, the fall-through
from thin memories, de-duplication and bad input."""

from __future__ import annotations

from engram_cli.stack import Stack

from .helpers import admin_fetchval, call, call_error, mcp_client

RUNBOOK = """# Failover runbook

## Before you start

Check that the replica lag on pg-replica-3 is under five seconds.

## Promote

Run `pgctl promote --node pg-replica-3` and wait for the health page.

""" + "\n\n".join(f"Appendix paragraph {i}: nothing to see here, filler text." for i in range(40))

HTML = ("<html><head><style>p {color: red}</style></head><body><h1>Badge policy</h1>"
        "<p>Visitors collect a yellow badge at reception desk B.</p></body></html>")


async def test_ingest_search_and_fall_through(stack: Stack, agent_token: str, admin_dsn: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        doc = await call(client, "document_ingest", {"content": RUNBOOK, "format": "markdown",
                                                     "source": "wiki/failover.md",
                                                     "title": "Failover runbook"})
        again = await call(client, "document_ingest", {"content": RUNBOOK,
                                                       "source": "wiki/failover.md"})
        html = await call(client, "document_ingest", {"content": HTML, "format": "html",
                                                      "source": "intranet/badges"})
        found = await call(client, "document_search", {"query": "how do I promote the replica"})
        badge = await call(client, "document_search", {"query": "visitor badge colour"})
        fell = await call(client, "memory_search", {"query": "pgctl promote replica node",
                                                    "tags": ["no-memory-has-this-tag"]})
    assert doc["chunks"] > 1 and doc["embedded"] is True and doc["duplicate"] is False
    assert again == {**doc, "duplicate": True}
    assert "pgctl promote --node pg-replica-3" in found["documents"][0]["text"]
    assert found["documents"][0]["document_id"] == doc["id"]
    assert "yellow badge" in badge["documents"][0]["text"]
    assert "color: red" not in badge["documents"][0]["text"]  # style is not content
    assert badge["documents"][0]["document_id"] == html["id"]
    assert fell["entries"] == [] and fell["layer"] == "documents"
    assert "pgctl promote" in fell["documents"][0]["text"]
    verbatim = await admin_fetchval(admin_dsn, "SELECT content FROM memory.documents"
                                    " WHERE id = $1::uuid", doc["id"])
    assert verbatim == RUNBOOK.strip()


async def test_document_bad_input(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        empty = await call_error(client, "document_ingest", {"content": " ", "source": "x"})
        fmt = await call_error(client, "document_ingest", {"content": "x", "source": "x",
                                                           "format": "pdf"})
        nosource = await call_error(client, "document_ingest", {"content": "x", "source": ""})
    assert "content must not be empty" in empty
    assert "format must be one of text, markdown, html" in fmt
    assert "source must not be empty" in nosource
