"""Documents through MCP: verbatim ingest, chunk search, the fall-through
from thin memories, de-duplication and bad input."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import time
import uuid
import zlib
from pathlib import Path

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, mcp_client, postings_out_of_step

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
    assert await chunk_statistics_out_of_step(admin_dsn) == 0


async def chunk_statistics_out_of_step(admin_dsn: str) -> int:
    """Migration 0013: how far the chunks' postings, df and totals are from
    what the chunks themselves hold (0 when exact)."""
    postings = await postings_out_of_step(admin_dsn, "chunk_lexemes", "chunk_id",
                                          "document_chunks")
    df = await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM memory.chunk_lexicon l WHERE l.df <> (SELECT count(*)"
        " FROM memory.chunk_lexemes p WHERE p.namespace = l.namespace AND p.lexeme = l.lexeme)")
    totals = await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM memory.chunk_lexicon_totals t WHERE (t.chunks, t.tokens)"
        " <> (SELECT count(DISTINCT c.id), coalesce(sum(p.tf), 0) FROM memory.document_chunks c"
        " LEFT JOIN memory.chunk_lexemes p ON p.chunk_id = c.id WHERE c.namespace = t.namespace)")
    return postings + df + totals


async def test_chunk_statistics_follow_a_deleted_document(stack: Stack, admin_dsn: str):
    """No tool deletes documents yet; the delete trigger must still keep the
    statistics exact when a document's chunks cascade away (an operator's
    delete, a future forget)."""
    ns = f"docs-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        kept = await call(client, "document_ingest", {"content": HTML, "format": "html",
                                                      "source": "intranet/badges",
                                                      "namespace": ns})
        gone = await call(client, "document_ingest", {"content": RUNBOOK, "source": "wiki/x",
                                                      "namespace": ns})
        await admin_fetchval(admin_dsn, "DELETE FROM memory.documents WHERE id = $1::uuid",
                             gone["id"])
        found = await call(client, "document_search", {"query": "promote replica badge",
                                                       "namespace": ns})
    assert await chunk_statistics_out_of_step(admin_dsn) == 0
    assert await admin_fetchval(
        admin_dsn, "SELECT chunks FROM memory.chunk_lexicon_totals WHERE namespace = $1",
        ns) == kept["chunks"]
    assert {d["document_id"] for d in found["documents"]} == {kept["id"]}


async def test_document_bad_input(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        empty = await call_error(client, "document_ingest", {"content": " ", "source": "x"})
        fmt = await call_error(client, "document_ingest", {"content": "x", "source": "x",
                                                           "format": "docx"})
        nosource = await call_error(client, "document_ingest", {"content": "x", "source": ""})
    assert "content must not be empty" in empty
    assert "format must be one of text, markdown, html, pdf" in fmt
    assert "source must not be empty" in nosource


def tiny_pdf(pages: list[str], padding: int = 0) -> bytes:
    """A minimal valid PDF: one line of Helvetica text per page; `padding`
    bytes of comment make it as large as a test needs."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    kids = []
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        page, stream = 3 + 2 * i, 4 + 2 * i
        kids.append(f"{page} 0 R")
        body = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                       f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {stream} 0 R >>")
        objects.append(f"<< /Length {len(body)} >>\nstream\n{body}\nendstream")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>"
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    comment = b"%" + b"p" * padding + b"\n" if padding else b""
    out, offsets = bytearray(b"%PDF-1.4\n" + comment), []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{obj}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)


async def test_a_large_pdf_reaches_memory_whole(stack: Stack, agent_token: str,
                                                admin_dsn: str):
    """Past gRPC's default 4 MiB message: a PDF within the documented 16 MB
    travels base64-encoded through the gateway and whole to memory."""
    pdf = tiny_pdf(["The large manual says the relief valve opens at 9 bar"],
                   padding=15_000_000)
    async with mcp_client(stack.mcp_url, agent_token) as client:
        doc = await call(client, "document_ingest", {
            "content": base64.b64encode(pdf).decode(), "format": "pdf",
            "source": "manuals/large.pdf"})
    stored = await admin_fetchval(admin_dsn, "SELECT length(original) FROM memory.documents"
                                  " WHERE id = $1::uuid", doc["id"])
    assert doc["chunks"] >= 1 and stored == len(pdf)


async def test_pdf_ingest_keeps_the_file_and_indexes_its_text(stack: Stack, agent_token: str,
                                                              admin_dsn: str):
    pdf = tiny_pdf(["Turbine maintenance schedule for plant seven",
                    "The flux regulator on unit 4 is replaced every 900 hours"])
    encoded = base64.b64encode(pdf).decode()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        doc = await call(client, "document_ingest", {"content": encoded, "format": "pdf",
                                                     "source": "manuals/plant7.pdf"})
        again = await call(client, "document_ingest", {"content": encoded, "format": "pdf",
                                                       "source": "manuals/plant7.pdf"})
        found = await call(client, "document_search", {"query": "how often is the flux "
                                                                "regulator replaced"})
        not_base64 = await call_error(client, "document_ingest", {
            "content": "%PDF-1.4 not encoded", "format": "pdf", "source": "x.pdf"})
        not_pdf = await call_error(client, "document_ingest", {
            "content": base64.b64encode(b"hello, plain text").decode(), "format": "pdf",
            "source": "x.pdf"})
        scanned = await call_error(client, "document_ingest", {
            "content": base64.b64encode(tiny_pdf([""])).decode(), "format": "pdf",
            "source": "scan.pdf"})
        damaged = await call_error(client, "document_ingest", {
            "content": base64.b64encode(pdf[:200]).decode(), "format": "pdf",
            "source": "broken.pdf"})
    assert doc["embedded"] is True and doc["chunks"] >= 1 and not doc["duplicate"]
    assert again["duplicate"] is True and again["id"] == doc["id"]
    top = found["documents"][0]
    assert top["document_id"] == doc["id"] and "every 900 hours" in top["text"]
    stored = await admin_fetchval(admin_dsn, "SELECT original FROM memory.documents"
                                  " WHERE id = $1::uuid", doc["id"])
    assert bytes(stored) == pdf  # the verbatim file
    assert "not valid base64" in not_base64
    assert "not a PDF file" in not_pdf
    assert "no text layer" in scanned and "OCR is not built" in scanned
    assert "could not be read" in damaged
    for text in (not_pdf, scanned, damaged):
        assert "Traceback" not in text and "internal error" not in text
    count = await admin_fetchval(admin_dsn, "SELECT count(*) FROM memory.documents"
                                 " WHERE source IN ('x.pdf', 'scan.pdf', 'broken.pdf')")
    assert count == 0


def shared_stream_pdf(pages: int, body: bytes) -> bytes:
    """`pages` pages whose /Contents all name one compressed content stream:
    small on the wire, parsed again for every page."""
    packed = zlib.compress(body, 9)
    stream, font = 3 + pages, 4 + pages
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode()]
    objects += [(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                 f"<< /Font << /F1 {font} 0 R >> >> /Contents {stream} 0 R >>").encode()] * pages
    objects.append(f"<< /Length {len(packed)} /Filter /FlateDecode >>\nstream\n".encode()
                   + packed + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)


def cpu_seconds(pid: int) -> float:
    """CPU time used so far by a process and every live descendant of it."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    family, total = {pid}, 0.0
    for _ in range(4):  # a few generations deep is enough for a worker pool
        family |= {p for p, (ppid, _) in stats.items() if ppid in family}
    for p in family:
        total += stats.get(p, (0, 0.0))[1]
    return total


async def test_expensive_pdf_is_refused_in_time_and_its_work_stops(stack: Stack,
                                                                    agent_token: str):
    """1000 pages sharing one content stream of 20k operators (~0.5 s of pure
    Python per page): refused within the call's deadline, the service answers
    other calls meanwhile, and no extraction keeps running afterwards."""
    heavy = b"BT /F1 12 Tf 72 720 Td " + b"1 0 0 1 0 0 Tm\n" * 20_000 + b"(x) Tj ET"
    encoded = base64.b64encode(shared_stream_pdf(1000, heavy)).decode()
    memory_pid = stack.procs["memory"].pid
    async with mcp_client(stack.mcp_url, agent_token) as client:
        started = time.monotonic()
        ingest = asyncio.create_task(call_error(client, "document_ingest", {
            "content": encoded, "format": "pdf", "source": "bomb.pdf"}))
        await asyncio.sleep(1.0)
        asked = time.monotonic()
        other = await call(client, "document_search", {"query": "anything at all"})
        answered = time.monotonic() - asked
        refused = await ingest
        took = time.monotonic() - started
        before = cpu_seconds(memory_pid)
        await asyncio.sleep(3.0)
        spent = cpu_seconds(memory_pid) - before
    assert spent < 0.6, f"the memory service used {spent:.2f} s of CPU after the call ended"
    assert "documents" in other and answered < 5.0, f"another call took {answered:.1f} s"
    assert "too expensive to extract" in refused and "Traceback" not in refused
    assert took < 12.0, f"refused after {took:.1f} s"


async def test_pdf_character_limit_applies_while_extracting(stack: Stack, agent_token: str):
    """1000 pages of ~21k characters each (21M in all): extraction stops at
    the page that passes the 2M limit instead of extracting all of them."""
    line = b"(abcdefghij klmnopqrst uvwxyz0123 456789abcd) Tj\n"
    encoded = base64.b64encode(shared_stream_pdf(
        1000, b"BT /F1 12 Tf 72 720 Td " + line * 500 + b" ET")).decode()
    async with mcp_client(stack.mcp_url, agent_token) as client:
        started = time.monotonic()
        refused = await call_error(client, "document_ingest", {
            "content": encoded, "format": "pdf", "source": "long.pdf"})
        took = time.monotonic() - started
    stopped = re.search(r"at page (\d+) of 1000", refused)
    assert stopped and int(stopped.group(1)) < 200, refused
    assert "2000000 characters" in refused
    assert took < 9.0, f"refused after {took:.1f} s"


async def test_one_principals_pdf_flood_leaves_a_worker_for_another(stack: Stack,
                                                                    agent_token: str):
    """Four expensive PDFs at once from one principal (each holds a worker
    until its 8 s budget ends) do not hold every worker: another principal's
    small PDF, sent while they run, is read at once."""
    heavy = b"BT /F1 12 Tf 72 720 Td " + b"1 0 0 1 0 0 Tm\n" * 20_000 + b"(x) Tj ET"
    bomb = base64.b64encode(shared_stream_pdf(1000, heavy)).decode()
    small = base64.b64encode(tiny_pdf(["The spare fuses are in drawer eleven"])).decode()
    token_b = stack.principals.create("pdf-fair-b", "agent", ["pdf-fair-b"])
    async with mcp_client(stack.mcp_url, agent_token) as flood, \
            mcp_client(stack.mcp_url, token_b) as other:
        bombs = [asyncio.create_task(call_error(flood, "document_ingest", {
            "content": bomb, "format": "pdf", "source": f"bomb-{i}.pdf"})) for i in range(4)]
        await asyncio.sleep(1.5)
        asked = time.monotonic()
        doc = await call(other, "document_ingest", {"content": small, "format": "pdf",
                                                    "source": "fuses.pdf"})
        answered = time.monotonic() - asked
        refused = await asyncio.gather(*bombs)
    assert doc["chunks"] >= 1 and answered < 5.0, f"the small PDF took {answered:.1f} s"
    assert all("too expensive to extract" in r or "stayed busy" in r for r in refused)
