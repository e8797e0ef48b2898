"""`engram mcp-stdio --data-dir` with no stack running: the bridge starts one
in the background (and says so on stderr), answers `initialize` and
`tools/list` once it is up, bridges started together share that one stack,
it outlives them, a second `engram up` on it is refused, and `engram down`
stops it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from engram_runner.autostart import up_lock_holder
from engram_runner.infra import port_open
from engram_runner.supervisor import STATE_FILE

from ..helpers import call
from ..stacks import Variant, offset

OFFSET = offset(Variant.STDIO_AUTOSTART)
# A cold start (initdb, migrations, the model) on a loaded machine.
COLD_START_S = 300
HANDSHAKE = {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "autostart-test", "version": "0"}}
ENGRAM = [sys.executable, "-m", "engram_cli"]


def bridge_env() -> dict[str, str]:
    """No ENGRAM_URL or ENGRAM_TOKEN: the data dir is all the bridge is told
    (ENGRAM_POSTGRES_BASE stays: run as root, the test run's own base)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ENGRAM_") or k == "ENGRAM_POSTGRES_BASE"}
    return {**env, "ENGRAM_PORT_OFFSET": str(OFFSET)}


def bridge(data_dir: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, env=bridge_env(),
                                 args=["-m", "engram_cli", "mcp-stdio", "--data-dir",
                                       str(data_dir)])


async def rpc(streams: Any, request_id: int, method: str, params: dict[str, Any] | None,
              timeout_s: float) -> JSONRPCResponse | JSONRPCError:
    read, write = streams
    await write.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method,
                                                   params=params)))
    with anyio.fail_after(timeout_s):
        async for item in read:
            message = item.message if isinstance(item, SessionMessage) else None
            if isinstance(message, JSONRPCResponse | JSONRPCError):
                assert message.id == request_id, f"an answer nobody asked for: {message}"
                return message
    raise AssertionError("the bridge closed stdout")


async def cold_tools(data_dir: Path, errlog: Path, into: list[list[str]]) -> None:
    """initialize (waits for the start) then tools/list, over one bridge."""
    with errlog.open("w") as err:
        async with stdio_client(bridge(data_dir), errlog=err) as streams:
            init = await rpc(streams, 1, "initialize", HANDSHAKE, COLD_START_S)
            assert isinstance(init, JSONRPCResponse), init
            await streams[1].send(SessionMessage(JSONRPCNotification(
                jsonrpc="2.0", method="notifications/initialized")))
            tools = await rpc(streams, 2, "tools/list", None, 60)
            assert isinstance(tools, JSONRPCResponse), tools
            into.append([t["name"] for t in tools.result["tools"]])


def engram(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ENGRAM, *args], capture_output=True, text=True, timeout=180,
                          env=bridge_env())


async def test_two_cold_bridges_start_one_stack_that_outlives_them(tmp_path: Path):
    data_dir = tmp_path / "data"
    errlogs = [tmp_path / "bridge-1.err", tmp_path / "bridge-2.err"]
    listed: list[list[str]] = []
    try:
        async with anyio.create_task_group() as tg:
            for errlog in errlogs:
                tg.start_soon(cold_tools, data_dir, errlog, listed)
        assert len(listed) == 2 and listed[0] == listed[1] and len(listed[0]) > 20
        said = [p.read_text() for p in errlogs]
        starting = [s for s in said if f"starting engram stack on {data_dir}" in s]
        assert len(starting) == 1, said  # one bridge started it, the other waited for it
        holder = up_lock_holder(data_dir)
        assert holder, "the stack stopped with its bridges"
        state = json.loads((data_dir / STATE_FILE).read_text())
        assert state["supervisor"]["pid"] == holder
        assert state["mcp_url"] == f"http://127.0.0.1:{8750 + OFFSET}/mcp"
        token = (data_dir / "agent-token").read_text().strip()
        assert token not in (data_dir / "logs" / "up.log").read_text(), "a token in a log"

        again = engram("up", "--data-dir", str(data_dir))
        assert again.returncode == 1 and f"engram already runs on {data_dir}" in again.stderr

        # A later bridge finds it running: no second start; it stores and searches.
        text = f"The autostarted stack keeps memories ({uuid.uuid4().hex[:8]})."
        async with Client(bridge(data_dir)) as client:
            await call(client, "memory_store", {"text": text})
            found = await call(client, "memory_search", {"query": "autostarted stack memories"})
        assert text in json.dumps(found)
        assert up_lock_holder(data_dir) == holder
    finally:
        down = engram("down", "--data-dir", str(data_dir))
    assert down.returncode == 0, down.stderr
    assert f"stopped the engram stack on {data_dir}" in down.stdout
    assert up_lock_holder(data_dir) is None
    for base in (8750, 8751, 8756, 8757):
        assert not port_open(base + OFFSET), f"port {base + OFFSET} still open after down"
    assert engram("down", "--data-dir", str(data_dir)).stdout.startswith("no engram stack")


def test_a_stack_that_cannot_start_fails_the_request_and_the_bridge_goes_on(tmp_path: Path):
    """The data dir is a file: the initialize gets an error that says why,
    and the next request is answered (with the same error: it tries again)."""
    data_dir = tmp_path / "not-a-dir"
    data_dir.write_text("")
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HANDSHAKE},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    started = time.monotonic()
    done = subprocess.run([*ENGRAM, "mcp-stdio", "--data-dir", str(data_dir)],
                          input="".join(json.dumps(x) + "\n" for x in lines),
                          capture_output=True, text=True, timeout=60, env=bridge_env())
    assert done.returncode == 0, done.stderr
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    for request_id in (1, 2):
        error = replies[request_id]["error"]
        assert error["code"] == -32000
        assert error["message"].startswith(f"engram stack on {data_dir} could not start")
        assert "must be a directory" in error["message"]
    assert time.monotonic() - started < 30
