"""Every HTTP route of the gateway (REST, /mcp, health) sits behind the same
body limit and Host/Origin guard: a declared oversized body is a 413 before
anything reads it, a chunked one is 413 as soon as it passes the limit (a
request without a token has no body read at all: test_slow_clients), and a
foreign Host or Origin is refused on REST routes exactly as on /mcp."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx
import pytest

from engram_runner.stack import Stack

LIMIT = 24 * 1024 * 1024  # ENGRAM_MAX_BODY_BYTES default
ROUTES = ["/v1/memories", "/v1/board/messages", "/v1/memories/x/forget", "/mcp"]


async def raw_post(stack: Stack, path: str, headers: dict[str, str], body: bytes) -> str:
    """Send a request head and `body` (maybe less than declared) over a raw
    socket and return the status line and body of the answer, so the test
    sees whether the server answers without reading what was not sent."""
    url = urlsplit(stack.mcp_url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        head = [f"POST {path} HTTP/1.1", f"Host: {url.netloc}",
                "Content-Type: application/json", "Accept: application/json, text/event-stream",
                *[f"{k}: {v}" for k, v in headers.items()], "", ""]
        writer.write("\r\n".join(head).encode() + body)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), timeout=20)  # a 413 closes
        return answer.decode(errors="replace")
    finally:
        writer.close()


def token_headers(stack: Stack) -> dict[str, str]:
    ns = f"guard-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    return {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}


@pytest.mark.parametrize("path", ROUTES)
@pytest.mark.parametrize("with_token", [True, False])
async def test_declared_oversized_body_is_413_before_it_is_read(stack: Stack, path: str,
                                                                with_token: bool):
    headers = token_headers(stack) if with_token else {}
    # 64 MiB declared, 64 KiB sent: only an answer that does not wait for the body arrives.
    answer = await raw_post(stack, path, {**headers, "Content-Length": str(64 * 1024 * 1024)},
                            b"x" * 65536)
    assert answer.startswith("HTTP/1.1 413"), answer[:300]
    if path != "/mcp":
        detail = json.loads(answer.split("\r\n\r\n", 1)[1])
        assert detail["error"] == "payload_too_large" and str(LIMIT) in detail["detail"]


@pytest.mark.parametrize("path", ROUTES)
async def test_chunked_oversized_body_is_413(stack: Stack, path: str):
    headers = token_headers(stack)
    piece = b"x" * (256 * 1024)
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(LIMIT // len(piece)))
    # The limit plus one byte, and no final chunk: the server must stop counting on its own.
    chunks += b"1\r\nx\r\n"
    answer = await raw_post(stack, path, {**headers, "Transfer-Encoding": "chunked"}, chunks)
    assert answer.startswith("HTTP/1.1 413"), answer[:300]


async def test_a_body_within_the_limit_still_reaches_the_route(stack: Stack):
    headers = token_headers(stack)
    base = stack.mcp_url.removesuffix("/mcp")
    text = "The build cache lives on the ci-cache volume." + " " * 1024 * 1024

    async def chunks() -> AsyncIterator[bytes]:
        yield json.dumps({"text": "Chunked bodies are counted too.", "source": "guard"}).encode()

    async with httpx.AsyncClient(timeout=60) as http:
        stored = await http.post(f"{base}/v1/memories", headers=headers,
                                 json={"text": text, "source": "guard-test"})
        chunked = await http.post(
            f"{base}/v1/memories", headers={**headers, "Content-Type": "application/json"},
            content=chunks())
    assert stored.status_code == 200, stored.text
    assert chunked.status_code == 200, chunked.text


@pytest.mark.parametrize("path", ["/v1/memories/search?query=x", "/v1/board/agents",
                                  "/v1/openapi.json", "/healthz"])
async def test_foreign_host_and_origin_are_refused_on_every_route(stack: Stack, path: str):
    headers = token_headers(stack)
    url = stack.mcp_url.removesuffix("/mcp") + path
    async with httpx.AsyncClient(timeout=30) as http:
        fine = await http.get(url, headers=headers)
        host = await http.get(url, headers={**headers, "Host": "evil.example.com"})
        origin = await http.get(url, headers={**headers, "Origin": "https://evil.example"})
        local = await http.get(url, headers={**headers, "Origin": "http://localhost:3000"})
        mcp_host = await http.post(stack.mcp_url, headers={**headers, "Host": "evil.example.com"},
                                   json={})
    assert fine.status_code == 200, fine.text
    assert host.status_code == mcp_host.status_code == 421, host.text
    assert origin.status_code == 403 and "Origin" in origin.text
    assert local.status_code == 200
