"""Port 0 binding and the ports file: how tests and tools learn the ports a
server was given by the OS, with no probe-then-bind race."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from engram_kit.ports import bind_tcp, bound_port, read_ports_file, write_ports_file


def test_port_zero_is_bound_and_held_until_closed() -> None:
    sock = bind_tcp("127.0.0.1", 0)
    try:
        port = bound_port(sock)
        assert port > 0
        sock.listen()
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            pass
        with pytest.raises(OSError):  # nobody else can take it meanwhile
            bind_tcp("127.0.0.1", port).listen()
    finally:
        sock.close()


def test_the_ports_file_is_absent_then_whole(tmp_path: Path) -> None:
    path = tmp_path / "ports.json"
    assert read_ports_file(path) is None
    write_ports_file(str(path), {"grpc": 41000, "http": 41001})
    assert read_ports_file(path) == {"grpc": 41000, "http": 41001}
    assert [p.name for p in tmp_path.iterdir()] == ["ports.json"]  # no temp file left


def test_a_server_on_the_socket_sends_without_waiting_for_acks() -> None:
    """An asyncio server (uvicorn's) on this socket answers with Nagle off:
    with it on, every reply written as head then body on a kept-alive
    connection stalled for the client's delayed ACK."""
    async def accepted_nodelay() -> int:
        seen: asyncio.Queue[int] = asyncio.Queue()

        async def on_client(_r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            conn = writer.get_extra_info("socket")
            seen.put_nowait(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        sock = bind_tcp("127.0.0.1", 0)
        server = await asyncio.start_server(on_client, sock=sock)
        async with server:
            _r, w = await asyncio.open_connection("127.0.0.1", bound_port(sock))
            value = await asyncio.wait_for(seen.get(), 5)
            w.close()
        return value

    assert asyncio.run(accepted_nodelay()) != 0
