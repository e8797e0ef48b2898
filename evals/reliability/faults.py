"""Faults for the reliability campaign, injected into a real `engram up`.

The stack runs as `engram up` in a subprocess, so whatever restarts a killed
process is the stack's own supervisor, exactly as a user runs it: it brings
back Postgres and NATS as well as the services, so a fault's recovery is
waited for (SELF_HEAL_WAIT_S, then a slow grace) and recorded as "itself" or
"none", never done by the harness."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from engram_runner.infra import port_open
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack, ready

SELF_HEAL_WAIT_S = 30.0
SERVICES = ("embedder", "memory", "cortex", "dreamer", "coordination", "gateway")


@dataclass
class Recovery:
    target: str
    by: str  # "itself", "harness" or "none"
    seconds: float
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"target": self.target, "recovered_by": self.by,
                "recovery_s": round(self.seconds, 1), "detail": self.detail}


class EngramUp:
    """`engram up` in a subprocess, plus a Stack object over the same data
    directory for its ports, secrets, principals and infrastructure."""

    def __init__(self, data_dir: Path, port_offset: int, timeout_s: float = 300.0) -> None:
        self.data_dir, self.port_offset, self.timeout_s = data_dir, port_offset, timeout_s
        self.proc: subprocess.Popen | None = None
        self.stack: Stack | None = None
        self.harness_nats = False

    def start(self) -> float:
        started = time.monotonic()
        env = {**os.environ, "ENGRAM_PORT_OFFSET": str(self.port_offset),
               "ENGRAM_DATA_DIR": str(self.data_dir), "PYTHONUNBUFFERED": "1"}
        self.log = open(self.data_dir.parent / f"{self.data_dir.name}-up.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen([sys.executable, "-m", "engram_cli", "up"], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.timeout_s
        while not (self.data_dir / "agent-token").exists() or self.stack is None:
            if (self.data_dir / "secrets.json").exists() and self.stack is None:
                self.stack = Stack(RunnerSettings(data_dir=self.data_dir,
                                               port_offset=self.port_offset))
            self._check(deadline)
            time.sleep(0.5)
        self.token = (self.data_dir / "agent-token").read_text().strip()
        while not self.all_ready():
            self._check(deadline)
            time.sleep(0.5)
        return time.monotonic() - started

    def _check(self, deadline: float) -> None:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError(f"engram up exited with {self.proc.returncode}; see {self.log.name}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"engram up not ready after {self.timeout_s:.0f}s")

    @property
    def s(self) -> Stack:
        assert self.stack is not None
        return self.stack

    def ready_services(self) -> list[str]:
        return [n for n in SERVICES if ready(self.s.topology.services[n].ready_url)]

    def all_ready(self) -> bool:
        return len(self.ready_services()) == len(SERVICES)

    @property
    def rest_url(self) -> str:
        return f"http://127.0.0.1:{self.s.topology.gateway_port}"

    def service_pid(self, name: str) -> int | None:
        assert self.proc is not None
        for child in psutil.Process(self.proc.pid).children(recursive=False):
            try:
                if f"engram_{name}" in child.cmdline():
                    return child.pid
            except psutil.NoSuchProcess:
                continue
        return None

    def postgres_pid(self) -> int | None:
        pidfile = self.s.postgres.pgdata / "postmaster.pid"
        try:
            return int(pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def nats_pid(self) -> int | None:
        for proc in psutil.process_iter(["name", "cmdline"]):
            cmd = proc.info["cmdline"] or []
            if "nats-server" in " ".join(cmd[:1]) and str(self.s.nats.port) in cmd:
                return proc.pid
        return None

    def pid(self, target: str) -> int | None:
        if target == "postgres":
            return self.postgres_pid()
        if target == "nats":
            return self.nats_pid()
        return self.service_pid(target)

    def kill(self, target: str) -> int | None:
        pid = self.pid(target)
        if pid is not None:
            try:
                self._children = [c.pid for c in psutil.Process(pid).children(recursive=True)]
            except psutil.NoSuchProcess:
                self._children = []
            os.kill(pid, signal.SIGKILL)
        return pid

    def infra_up(self, target: str) -> bool:
        port = self.s.postgres.port if target == "postgres" else self.s.nats.port
        return port_open(port) and self.pid(target) is not None

    def harness_start(self, target: str) -> None:
        if target == "postgres":
            wait_gone(getattr(self, "_children", []))
            self.s.postgres.start()
        elif target == "nats":
            self.s.nats.start()
            self.harness_nats = True
        # A service: `engram up` is the only one that can start it; the
        # harness cannot adopt it, so the run records "none".

    def recover(self, target: str, old_pid: int | None, started: float) -> Recovery:
        """Wait for the stack to bring `target` back. `engram up` supervises
        Postgres and NATS as it does the services, so the harness never starts
        one itself (a second start would collide on the port): slow is
        recorded as slow, absent as "none"."""
        deadline = started + SELF_HEAL_WAIT_S + 120
        while time.monotonic() < deadline:
            if self._back(target, old_pid):
                return Recovery(target, "itself", time.monotonic() - started)
            time.sleep(0.25)
        return Recovery(target, "none", time.monotonic() - started,
                        f"not ready: {sorted(set(SERVICES) - set(self.ready_services()))}")

    def _back(self, target: str, old_pid: int | None) -> bool:
        if target in ("postgres", "nats"):
            return self.infra_up(target) and self.pid(target) != old_pid and self.all_ready()
        pid = self.service_pid(target)
        return pid is not None and pid != old_pid and self.all_ready()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.stack is not None:
            if self.harness_nats:
                self.s.nats.stop()
            self.s.postgres.stop()
        self.log.close()


def wait_gone(pids: list[int], timeout_s: float = 30.0) -> None:
    """After a SIGKILL of the postmaster its backends linger until they notice;
    Postgres refuses to start while they hold the old shared memory."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(psutil.pid_exists(p) for p in pids):
        time.sleep(0.25)
