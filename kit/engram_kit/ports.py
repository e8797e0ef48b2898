"""Listening sockets bound before the server starts, so port 0 means "any
free port, chosen by the OS" and the chosen port is known. With a ports file
configured, the bound ports are written there once the sockets exist: a
supervisor or a test reads them instead of probing for a free port and racing
another process to bind it."""

from __future__ import annotations

import json
import os
import socket
import tempfile
from collections.abc import Mapping
from pathlib import Path


def bind_tcp(host: str, port: int) -> socket.socket:
    """A bound TCP socket for a server to listen on (port 0: the OS picks).
    Made with an explicit IPPROTO_TCP: asyncio turns Nagle off (TCP_NODELAY)
    only on accepted sockets whose protocol says TCP, and with Nagle on, a
    kept-alive HTTP client waited out a delayed ACK (~40 ms) on every reply
    that uvicorn wrote as head then body."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def bound_port(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])


def write_ports_file(path: str, ports: Mapping[str, int]) -> None:
    """Write {name: port} atomically (a reader never sees half a file)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "w") as handle:
        json.dump(dict(ports), handle)
    os.replace(tmp, target)


def read_ports_file(path: Path) -> dict[str, int] | None:
    """The ports a server wrote, or None while it has not written them."""
    try:
        return {k: int(v) for k, v in json.loads(path.read_text()).items()}
    except (FileNotFoundError, json.JSONDecodeError):
        return None
