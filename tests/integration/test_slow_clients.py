"""Clients that send slowly or not at all, against a real gateway process over
raw sockets: without a valid token no body is read (401 at once, the
connection closed), a head or a body that does not arrive in time is 408, and
one address may hold only so many connections that have shown no token.
The gateway's memory is read from /proc while 100 stalled uploads are open."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from engram_runner.stack import Stack

from ..procs import service_process

MiB = 1024 * 1024


@dataclass
class Answer:
    status: int  # 0: closed without an answer
    text: str
    elapsed_s: float


def head(port: int, method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}",
             *[f"{k}: {v}" for k, v in headers.items()], "", ""]
    return "\r\n".join(lines).encode()


async def stalled(port: int, data: bytes, wait_s: float = 20.0) -> Answer:
    """Send `data`, then nothing more: what the server answers, and how long
    until it also closed the connection (read to EOF)."""
    started = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout=wait_s)
    except (ConnectionResetError, BrokenPipeError):
        raw = b""
    finally:
        writer.close()
    text = raw.decode(errors="replace")
    status = int(text.split(" ", 2)[1]) if text.startswith("HTTP/1.1 ") else 0
    return Answer(status, text, time.monotonic() - started)


def upload(port: int, path: str, declared: int, sent: int,
           extra: dict[str, str] | None = None) -> bytes:
    return head(port, "POST", path, {"Content-Type": "application/json",
                                     "Accept": "application/json, text/event-stream",
                                     "Content-Length": str(declared), **(extra or {})}) \
        + b"x" * sent


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def gateway(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A gateway of its own with short time bounds and a small cap, so that
    its memory and connections are this test's alone."""
    overrides = {"ENGRAM_HEAD_TIMEOUT_S": "2", "ENGRAM_BODY_TIMEOUT_S": "2",
                 "ENGRAM_MAX_UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS": "8",
                 "ENGRAM_CONSOLE_SESSION_KEY": "k" * 32}
    with service_process(stack, "gateway", overrides, tmp_path_factory.mktemp("gw")) as gw:
        yield gw


@pytest.mark.parametrize("path", ["/v1/memories", "/mcp", "/console/signout"])
@pytest.mark.parametrize("token", ["", "Bearer not-a-token"])
@pytest.mark.parametrize("chunked", [False, True])
async def test_a_stalled_body_without_a_token_is_401_at_once(stack: Stack, path: str,
                                                             token: str, chunked: bool):
    # The stack's gateway, default settings: 1 MiB declared (or chunked), 1 KiB sent.
    port = int(stack.mcp_url.split(":")[2].split("/")[0])
    extra = {"Authorization": token} if token else {}
    if chunked:
        request = head(port, "POST", path, {"Content-Type": "application/json",
                                            "Transfer-Encoding": "chunked", **extra}) \
            + b"400\r\n" + b"x" * 1024 + b"\r\n"  # and no last chunk
    else:
        request = upload(port, path, MiB, 1024, extra)
    answer = await stalled(port, request)
    assert answer.status == 401, answer.text[:300]
    assert answer.elapsed_s < 2.0, f"answered and closed after {answer.elapsed_s:.2f} s"


async def test_a_slow_head_and_an_idle_connection_are_408(gateway: dict):
    port = gateway["http"]
    idle = await stalled(port, b"", wait_s=10)
    partial = await stalled(port, b"POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\n", 10)
    for answer in (idle, partial):
        assert answer.status == 408 and "ENGRAM_HEAD_TIMEOUT_S" in answer.text, answer.text
        assert 1.5 < answer.elapsed_s < 6.0, answer.elapsed_s


async def test_a_slow_body_with_a_token_is_408(stack: Stack, gateway: dict):
    port = gateway["http"]
    ns = f"slow-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    answer = await stalled(port, upload(port, "/v1/memories", 4096, 100,
                                        {"Authorization": f"Bearer {token}"}), wait_s=10)
    assert answer.status == 408 and "ENGRAM_BODY_TIMEOUT_S" in answer.text, answer.text
    assert 1.5 < answer.elapsed_s < 6.0, answer.elapsed_s


async def test_the_signin_form_is_small_and_quick(gateway: dict):
    port = gateway["http"]
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    big = await stalled(port, head(port, "POST", "/console/signin",
                                   {**form, "Content-Length": str(64 * 1024)}))
    slow = await stalled(port, head(port, "POST", "/console/signin",
                                    {**form, "Content-Length": "200"}) + b"token=", 15)
    assert big.status == 413, big.text
    assert slow.status == 408 and slow.elapsed_s < 10, (slow.text, slow.elapsed_s)


async def test_a_signed_in_console_still_posts_its_forms(stack: Stack, gateway: dict):
    """The sign-in form's body is read without a token, and a form posted
    with the session cookie is read as one with a token."""
    ns = f"con-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"r-{ns}", "reviewer", [ns])
    base = f"http://127.0.0.1:{gateway['http']}/console"
    async with httpx.AsyncClient(timeout=10) as http:
        form = await http.get(f"{base}/signin")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert csrf, form.text
        signed = await http.post(f"{base}/signin", data={"token": token,
                                                          "csrf": csrf.group(1)})
        assert signed.status_code == 303, signed.text
        page = await http.get(f"{base}/")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert page.status_code == 200 and csrf, page.text
        out = await http.post(f"{base}/signout", data={"csrf": csrf.group(1)})
        assert out.status_code == 303 and out.headers["location"].endswith("/signin"), out.text


async def test_an_address_holds_few_unauthenticated_connections(stack: Stack, gateway: dict):
    port = gateway["http"]
    held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(8)]
    try:
        await asyncio.sleep(0.3)
        refused = await stalled(port, b"", wait_s=5)
        assert refused.status == 429, refused.text
        assert "ENGRAM_MAX_UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS" in refused.text
        # A connection that shows a token stops counting, so the next one is let in.
        reader, writer = held[0]
        ns = f"cap-{uuid.uuid4().hex[:6]}"
        token = stack.principals.create(f"p-{ns}", "agent", [ns])
        writer.write(head(port, "GET", "/v1/board/agents",
                          {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}))
        await writer.drain()
        assert (await asyncio.wait_for(reader.readline(), 10)).startswith(b"HTTP/1.1 200")
        async with httpx.AsyncClient(timeout=10) as http:
            assert (await http.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200
    finally:
        for _, writer in held:
            writer.close()


@pytest.mark.parametrize("sent", [1024, 512 * 1024])
async def test_a_hundred_stalled_uploads_leave_memory_flat(stack: Stack, tmp_path: Path,
                                                           sent: int):
    # Default settings; 100 connections each declare 1 MiB, send `sent` bytes
    # and stall, and stay open on this side while the gateway's RSS is read.
    with service_process(stack, "gateway", {}, tmp_path) as gw:
        port, pid = gw["http"], gw["proc"].pid
        async with httpx.AsyncClient(timeout=10) as http:  # warm: the first requests
            for _ in range(20):
                await http.post(f"http://127.0.0.1:{port}/v1/memories", json={})
        idle = rss_kib(pid)
        conns = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port)
                                       for _ in range(100)))
        try:
            for _, writer in conns:
                writer.write(upload(port, "/v1/memories", MiB, sent))
            answers = await asyncio.gather(*(_first_line(r) for r, _ in conns))
            peak = rss_kib(pid)
        finally:
            for _, writer in conns:
                writer.close()
    statuses = {a for a in answers}
    assert statuses <= {401, 429, 0}, statuses
    assert answers.count(401) >= 50, answers
    assert peak - idle < 20 * 1024, f"RSS {idle} KiB idle, {peak} KiB with 100 stalled uploads"


async def _first_line(reader: asyncio.StreamReader) -> int:
    try:
        line = await asyncio.wait_for(reader.readline(), 5)
    except (ConnectionResetError, TimeoutError):
        return 0
    return int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
