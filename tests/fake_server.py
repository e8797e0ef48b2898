"""How the test fakes (an OpenAI-compatible LLM, a vLLM embedder) listen: on
127.0.0.1, on a port the OS picks, written to a ports file the test reads."""

from __future__ import annotations

from typing import Any

import uvicorn

from engram_kit.ports import bind_tcp, bound_port, write_ports_file


def serve_on_any_port(app: Any, ports_file: str) -> None:
    """Serve an ASGI app until killed; {"http": port} goes to `ports_file`."""
    sock = bind_tcp("127.0.0.1", 0)
    write_ports_file(ports_file, {"http": bound_port(sock)})
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
