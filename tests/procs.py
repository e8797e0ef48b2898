"""Extra real service processes for tests that need non-default settings."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from engram_cli.stack import Stack


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def service_process(stack: Stack, name: str, overrides: dict[str, str],
                    log_dir: Path, wait_ready: bool = True) -> Iterator[dict]:
    """Run `name` as configured by the stack, but on free ports and with
    `overrides`; yields {"grpc": port, "http": port, "proc": Popen}."""
    grpc_port, http_port = free_port(), free_port()
    env = {**os.environ, **stack.topology.services[name].env,
           "ENGRAM_GRPC_PORT": str(grpc_port), "ENGRAM_HTTP_PORT": str(http_port),
           "HF_HUB_OFFLINE": "1", **overrides}
    log = open(log_dir / f"{name}-{grpc_port}.log", "wb")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen([sys.executable, "-m", f"engram_{name}"], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        if wait_ready:
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    raise AssertionError(f"{name} exited: {proc.returncode}")
                try:
                    if httpx.get(f"http://127.0.0.1:{http_port}/readyz", timeout=1).is_success:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"{name} not ready")
                time.sleep(0.2)
        yield {"grpc": grpc_port, "http": http_port, "proc": proc}
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()
