"""Extra real service processes for tests that need non-default settings."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from engram_kit.ports import read_ports_file
from engram_runner.stack import Stack


def dead_services(stack: Stack) -> list[str]:
    """The stack's service processes that have exited (tests check none died)."""
    return [n for n, p in stack.procs.items() if p.poll() is not None]


def probe_port() -> int:
    """A port that was free a moment ago, for programs that cannot bind port 0
    and report it (Postgres, a third-party model server): another process may
    take it first, which shows as that program failing to start. Everything
    of ours binds port 0 instead (ENGRAM_PORTS_FILE)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_ports(proc: subprocess.Popen, path: Path, name: str,
                   timeout_s: float = 120) -> dict[str, int]:
    """The ports a process started with ENGRAM_PORTS_FILE=path bound."""
    deadline = time.monotonic() + timeout_s
    while (ports := read_ports_file(path)) is None:
        if proc.poll() is not None:
            raise AssertionError(f"{name} exited before listening: {proc.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} did not start listening")
        time.sleep(0.1)
    return ports


def wait_until_ready(proc: subprocess.Popen, http_port: int, name: str,
               timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"{name} exited: {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{http_port}/readyz", timeout=1).is_success:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} not ready")
        time.sleep(0.2)


def start_fake(module: str, args: list[str], work_dir: Path) -> tuple[subprocess.Popen, int]:
    """Start a test fake (`tests.<module>`) on a port the OS picks; returns the
    process and its port once it listens."""
    ports_file = work_dir / f"{module}-{uuid.uuid4().hex[:8]}.ports.json"
    proc = subprocess.Popen([sys.executable, "-m", f"tests.{module}", str(ports_file), *args],
                            cwd=Path(__file__).parents[1])
    try:
        return proc, wait_for_ports(proc, ports_file, module)["http"]
    except BaseException:
        proc.kill()
        raise


@contextmanager
def service_process(stack: Stack, name: str, overrides: dict[str, str],
                    log_dir: Path, wait_ready: bool = True) -> Iterator[dict]:
    """Run `name` as configured by the stack, but on ports the OS picks and
    with `overrides`; yields {"grpc": port, "http": port, "proc": Popen}
    (without the ports when not waiting: the process may never listen)."""
    tag = uuid.uuid4().hex[:8]
    ports_file = log_dir / f"{name}-{tag}.ports.json"
    env = {**os.environ, **stack.topology.services[name].env,
           "ENGRAM_GRPC_PORT": "0", "ENGRAM_HTTP_PORT": "0",
           "ENGRAM_PORTS_FILE": str(ports_file), "HF_HUB_OFFLINE": "1", **overrides}
    log = open(log_dir / f"{name}-{tag}.log", "wb")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen([sys.executable, "-m", f"engram_{name}"], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        if not wait_ready:
            yield {"proc": proc}
        else:
            ports = wait_for_ports(proc, ports_file, name)
            wait_until_ready(proc, ports["http"], name)
            yield {**ports, "proc": proc}
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()
