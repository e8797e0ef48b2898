"""`engram mcp-stdio` on its own: start-up refusals, stdout that carries only
protocol, a gateway that is down (an error per request, and the bridge goes
on), a gateway that forgot the session, the session header, and the MCP
Inspector CLI driving it over stdio."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from anyio.abc import SocketListener, SocketStream
from mcp.client.stdio import stdio_client
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from engram_kit.ports import bind_tcp, bound_port
from engram_runner.stack import Stack

from ..helpers import call, mcp_client, mcp_stdio_client, stdio_bridge_params

BRIDGE = [sys.executable, "-m", "engram_cli", "mcp-stdio"]
INSPECTOR = Path(__file__).parents[2] / "tools/inspector/node_modules/.bin/mcp-inspector"
HANDSHAKE = {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "stdio-test", "version": "0"}}
Streams = tuple[Any, Any]


def bridge_env(**env: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    return {**keep, **env}


@contextmanager
def held_port() -> Iterator[socket.socket]:
    """A port bound and not listening: every connection to it is refused
    until something listens on this socket (no other process can take it)."""
    sock = bind_tcp("127.0.0.1", 0)
    try:
        yield sock
    finally:
        sock.close()


@pytest.mark.parametrize(("args", "env", "says"), [
    ([], {}, "no token: pass --token-file PATH or set ENGRAM_TOKEN"),
    (["--token-file", "/nonexistent/token"], {}, "cannot read --token-file /nonexistent/token"),
    ([], {"ENGRAM_TOKEN": "t", "ENGRAM_URL": "127.0.0.1:8750"}, "must be http(s)://host:port/mcp"),
    ([], {"ENGRAM_TOKEN": "t", "ENGRAM_SESSION": "two words"}, "ENGRAM_SESSION must be"),
    ([], {"ENGRAM_TOKEN": "t", "ENGRAM_STDIO_READ_TIMEOUT_S": "0"},
     "bad setting: ENGRAM_STDIO_READ_TIMEOUT_S (Input should be greater than 0)"),
    (["--url", "http://127.0.0.1:9/mcp", "--data-dir", "/nonexistent/engram"], {},
     "--url and --data-dir exclude each other"),
])
def test_refuses_to_start_without_what_it_needs(args: list[str], env: dict[str, str],
                                                says: str):
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HANDSHAKE})
    done = subprocess.run([*BRIDGE, *args], input=init + "\n", capture_output=True, text=True,
                          env=bridge_env(**env), timeout=60)
    assert done.returncode == 2
    assert says in done.stderr
    assert done.stdout == "", "nothing on stdout before the protocol"


def test_stdout_carries_only_protocol_and_the_input_ending_ends_it(stack: Stack,
                                                                  agent_token: str):
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HANDSHAKE},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    text = "".join(json.dumps(line) + "\n" for line in lines) + "this is not json\n"
    done = subprocess.run(BRIDGE, input=text, capture_output=True, text=True, timeout=60,
                          env=bridge_env(ENGRAM_URL=stack.mcp_url, ENGRAM_TOKEN=agent_token))
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies}
    assert by_id[1]["result"]["serverInfo"]["name"] == "engram"
    assert len(by_id[2]["result"]["tools"]) > 20
    assert by_id[None]["error"]["code"] == -32700
    assert "unreadable message from the client" in done.stderr


@contextmanager
def unanswering_server(hang_up: bool) -> Iterator[int]:
    """A port that accepts connections and closes them, or holds them, unanswered."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            with suppress(TimeoutError):
                conn = server.accept()[0]
                conn.close() if hang_up else held.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in [server, *held]:
            conn.close()


@pytest.mark.parametrize(("gateway", "said"), [
    ("refused", "unreachable at {url} (All connection attempts failed)"),
    ("hangs up", "at {url} dropped the connection unanswered"),
    ("silent", "at {url} did not answer within 2s"),
])
def test_input_ending_ends_the_bridge_after_a_failed_request(gateway: str, said: str):
    """Nothing listening, something that hangs up, something that never
    answers (ENGRAM_STDIO_READ_TIMEOUT_S bounds it): the request gets an error,
    and a client that leaves after it does not leave a bridge behind."""
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HANDSHAKE})
    with ExitStack() as stack:
        port = bound_port(stack.enter_context(held_port())) if gateway == "refused" else \
            stack.enter_context(unanswering_server(hang_up=gateway == "hangs up"))
        url = f"http://127.0.0.1:{port}/mcp"
        done = subprocess.run(BRIDGE, input=init + "\n", capture_output=True, text=True,
                              timeout=30, env=bridge_env(ENGRAM_URL=url, ENGRAM_TOKEN="t",
                                                         ENGRAM_STDIO_READ_TIMEOUT_S="2"))
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["id"] == 1 and reply["error"]["code"] == -32000
    assert reply["error"]["message"].startswith("engram gateway " + said.format(url=url))


async def rpc(streams: Streams, request_id: int | str, method: str,
              params: dict[str, Any] | None = None) -> JSONRPCResponse | JSONRPCError:
    read, write = streams
    await write.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method,
                                                   params=params)))
    with anyio.fail_after(30):
        async for item in read:
            message = item.message if isinstance(item, SessionMessage) else None
            if isinstance(message, JSONRPCResponse | JSONRPCError):
                assert message.id == request_id, f"an answer nobody asked for: {message}"
                return message
    raise AssertionError("the bridge closed stdout")


async def handshake(streams: Streams, request_id: int) -> JSONRPCResponse | JSONRPCError:
    reply = await rpc(streams, request_id, "initialize", HANDSHAKE)
    if isinstance(reply, JSONRPCResponse):
        await streams[1].send(SessionMessage(JSONRPCNotification(
            jsonrpc="2.0", method="notifications/initialized")))
    return reply


@asynccontextmanager
async def forwarder(sock: socket.socket, target: int, seen: bytearray) -> AsyncIterator[None]:
    """`sock` (bound, not yet listening) relayed to the gateway; what the
    gateway sends lands in `seen`."""
    async def pipe(src: SocketStream, dst: SocketStream, keep: bool) -> None:
        try:
            async for chunk in src:
                if keep:
                    seen.extend(chunk)
                await dst.send(chunk)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        finally:
            await dst.aclose()

    async def relay(client: SocketStream) -> None:
        upstream = await anyio.connect_tcp("127.0.0.1", target)
        async with anyio.create_task_group() as tg:
            tg.start_soon(pipe, client, upstream, False)
            tg.start_soon(pipe, upstream, client, True)

    sock.listen()
    listener = await SocketListener.from_socket(sock)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, relay)
        yield
        tg.cancel_scope.cancel()


async def test_gateway_down_then_up_the_same_bridge_goes_on(stack: Stack, agent_token: str):
    with held_port() as sock:
        await _down_then_up(stack, agent_token, sock)


async def _down_then_up(stack: Stack, agent_token: str, sock: socket.socket) -> None:
    url = f"http://127.0.0.1:{bound_port(sock)}/mcp"
    async with stdio_client(stdio_bridge_params(url, agent_token)) as streams:
        for attempt in (1, 2):
            with anyio.fail_after(15):
                down = await handshake(streams, attempt)
            assert isinstance(down, JSONRPCError) and down.error.code == -32000
            assert f"engram gateway unreachable at {url}" in down.error.message
        async with forwarder(sock, stack.topology.gateway_port, bytearray()):
            up = await handshake(streams, 3)
            assert isinstance(up, JSONRPCResponse), up
            tools = await rpc(streams, 4, "tools/list")
            assert isinstance(tools, JSONRPCResponse) and len(tools.result["tools"]) > 20


async def test_a_forgotten_session_is_replaced(stack: Stack, agent_token: str):
    """The gateway drops the handshake-era session (as on a restart): the
    request that finds out gets a clear error, the next one a new session."""
    seen = bytearray()
    with held_port() as sock:
        url = f"http://127.0.0.1:{bound_port(sock)}/mcp"
        async with forwarder(sock, stack.topology.gateway_port, seen), \
                stdio_client(stdio_bridge_params(url, agent_token)) as streams:
            assert isinstance(await handshake(streams, 1), JSONRPCResponse)
            assert isinstance(await rpc(streams, 2, "tools/list"), JSONRPCResponse)
            found = re.search(rb"mcp-session-id: *([^\r\n]+)", bytes(seen), re.IGNORECASE)
            assert found, "the gateway named no session"
            dropped = httpx.delete(stack.mcp_url, timeout=10, headers={
                "Authorization": f"Bearer {agent_token}", "Mcp-Session-Id": found[1].decode(),
                "MCP-Protocol-Version": HANDSHAKE["protocolVersion"]})
            assert dropped.status_code in (200, 204), dropped.text
            lost = await rpc(streams, 3, "tools/list")
            assert isinstance(lost, JSONRPCError)
            assert "no longer knows this session" in lost.error.message
            again = await rpc(streams, 4, "tools/list")
            assert isinstance(again, JSONRPCResponse), again
            stored = await rpc(streams, 5, "tools/call", {"name": "memory_store", "arguments": {
                "text": f"Session replay check {uuid.uuid4().hex[:8]}."}})
            assert isinstance(stored, JSONRPCResponse) and not stored.result.get("isError")


async def test_a_refused_token_says_so(stack: Stack):
    with pytest.raises(BaseException) as raised:  # the SDK wraps it in an ExceptionGroup
        async with mcp_stdio_client(stack.mcp_url, "not-a-real-token"):
            pass
    assert "engram gateway refused the token (HTTP 401" in repr(raised.value)


async def test_engram_session_is_sent(stack: Stack, agent_token: str):
    """ENGRAM_SESSION makes the bridge the same agent instance an HTTP client
    with that X-Engram-Session header is, and another one a different one."""
    session = f"stdio-{uuid.uuid4().hex[:8]}"
    update = {"action": "update", "status": "checking the session header"}
    async with mcp_stdio_client(stack.mcp_url, agent_token, session) as bridged:
        via_stdio = (await call(bridged, "board_agents", update))["agent"]["id"]
    async with mcp_client(stack.mcp_url, agent_token, session) as direct:
        via_http = (await call(direct, "board_agents", update))["agent"]["id"]
    async with mcp_client(stack.mcp_url, agent_token, session + "-other") as other:
        elsewhere = (await call(other, "board_agents", update))["agent"]["id"]
    assert via_stdio == via_http != elsewhere


def inspector(stack: Stack, token_file: Path, *method: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None:
        pytest.skip("node is not installed; the MCP Inspector CLI needs it (.ci/run installs it)")
    assert INSPECTOR.exists(), "the MCP Inspector CLI is missing: run `make inspector`"
    env = [f"ENGRAM_URL={stack.mcp_url}"]
    if os.environ.get("PYTHONPATH"):
        env.append(f"PYTHONPATH={os.environ['PYTHONPATH']}")
    command = [str(INSPECTOR), "--cli", *(a for e in env for a in ("-e", e)), *method,
               "--", *BRIDGE, "--token-file", str(token_file)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


async def test_mcp_inspector_cli_over_stdio(stack: Stack, agent_token: str, tmp_path: Path):
    token_file = tmp_path / "token"
    token_file.write_text(agent_token + "\n")
    async with mcp_client(stack.mcp_url, agent_token) as ref:
        ref_tools = [t.name for t in (await ref.list_tools()).tools]
    listed = inspector(stack, token_file, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == ref_tools
    prompts = inspector(stack, token_file, "--method", "prompts/list")
    assert prompts.returncode == 0, prompts.stderr
    assert [p["name"] for p in json.loads(prompts.stdout)["prompts"]] == ["briefing"]
    stored = inspector(stack, token_file, "--method", "tools/call", "--tool-name", "memory_store",
                       "--tool-arg", f"text=The inspector reached engram ({uuid.uuid4().hex[:8]}).")
    assert stored.returncode == 0, stored.stderr
    assert json.loads(stored.stdout)["structuredContent"]["finding"] == "new"
    refused = inspector(stack, token_file, "--method", "tools/call", "--tool-name",
                        "memory_search", "--tool-arg", "query=x", "--tool-arg", "namespace=nope")
    assert refused.returncode != 0
    assert "may not use namespace 'nope'" in refused.stdout


def test_a_cancelled_request_is_not_waited_for_at_exit():
    """The client gave up on a request the gateway never answers: when the
    input ends the bridge leaves at once, not after the read timeout."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
             {"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 1, "reason": "the user gave up"}}]
    with unanswering_server(hang_up=False) as port:
        started = time.monotonic()
        done = subprocess.run(BRIDGE, input="".join(json.dumps(x) + "\n" for x in lines),
                              capture_output=True, text=True, timeout=60,
                              env=bridge_env(ENGRAM_URL=f"http://127.0.0.1:{port}/mcp",
                                             ENGRAM_TOKEN="t", ENGRAM_STDIO_READ_TIMEOUT_S="40"))
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 20
