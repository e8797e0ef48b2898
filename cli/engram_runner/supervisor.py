"""`engram up`'s supervisor: every process the stack started (Postgres, NATS
and the six services) is watched and, when it exits, started again after an
exponential backoff with a cap. Each exit and restart is logged with its exit
code or signal, and the stack's state is published in a 0600 file of the data
dir for `engram status`."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from engram_runner import proctab
from engram_runner.files import open_log
from engram_runner.secrets_store import write_private
from engram_runner.settings import RunnerSettings

if TYPE_CHECKING:
    from engram_runner.stack import Stack

STATE_FILE = "stack-state.json"
STATE_VERSION = 1


def backoff_delay(settings: RunnerSettings, failures: int) -> float:
    """The wait before the next start after `failures` quick failures in a row."""
    base = settings.restart_backoff_initial_s
    return min(base * 2 ** min(max(failures, 1) - 1, 32), settings.restart_backoff_max_s)


class Scheduled(Protocol):
    """Work the supervisor's loop drives between its looks at the processes
    (the CLI's backup schedule)."""

    def tick(self) -> None: ...


class Phase(StrEnum):
    RUNNING = "running"
    RESTARTING = "restarting"  # exited; started again once its backoff delay has passed


@dataclass
class Watched:
    name: str
    pid: int | None
    started_at: float  # wall clock, for uptime in `engram status`
    started_mono: float
    restarts: int = 0
    failures: int = 0  # consecutive: runs shorter than the reset time, and failed starts
    last_exit: str = ""
    restart_at: float | None = None  # monotonic; set while the process is down

    @property
    def phase(self) -> Phase:
        return Phase.RUNNING if self.restart_at is None else Phase.RESTARTING


class Supervisor:
    def __init__(self, stack: Stack, settings: RunnerSettings,
                 say: Callable[[str], None], schedule: Scheduled | None = None) -> None:
        self.stack = stack
        self.schedule = schedule
        self.settings = settings
        self._say = say
        self.state_path = stack.data_dir / STATE_FILE
        self.log_path = stack.logs / "supervisor.log"
        self.started_at = time.time()
        self.watched = {name: Watched(name, self._pid(name), *self._started(name))
                        for name in stack.supervised()}
        self.write_state()

    def _started(self, name: str) -> tuple[float, float]:
        return self.stack.started.get(name, (time.time(), time.monotonic()))

    def _pid(self, name: str) -> int | None:
        proc = self.stack.process(name)
        return proc.pid if proc is not None else None

    def log(self, text: str) -> None:
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {text}"
        self._say(line)
        fd = open_log(self.log_path)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    def delay(self, failures: int) -> float:
        return backoff_delay(self.settings, failures)

    def tick(self) -> None:
        """One look at every process: note exits, restart those whose delay is
        over; start a scheduled backup when one is due."""
        if self.schedule is not None:
            self.schedule.tick()
        changed = False
        for watched in self.watched.values():
            if watched.restart_at is None:
                changed |= self._check(watched)
            elif time.monotonic() >= watched.restart_at:
                self._restart(watched)
                changed = True
        if changed:
            self.write_state()

    def _check(self, watched: Watched) -> bool:
        proc = self.stack.process(watched.name)
        code = proc.poll() if proc is not None else None
        if proc is not None and code is None:
            return False
        ran = time.monotonic() - watched.started_mono
        if ran >= self.settings.restart_backoff_reset_s:
            watched.failures = 0
        watched.failures += 1
        watched.last_exit = proctab.describe_exit(code) if code is not None else "gone"
        delay = self.delay(watched.failures)
        watched.restart_at = time.monotonic() + delay
        self.log(f"{watched.name} (pid {watched.pid}) exited: {watched.last_exit} after "
                 f"{ran:.1f}s; restarting in {delay:.1f}s; see "
                 f"{self.stack.log_of(watched.name)}")
        watched.pid = None
        return True

    def _restart(self, watched: Watched) -> None:
        try:
            self.stack.restart(watched.name)
        except Exception as exc:  # any failure to start is retried after a longer delay
            watched.failures += 1
            delay = self.delay(watched.failures)
            watched.restart_at = time.monotonic() + delay
            self.log(f"{watched.name} failed to start: {exc}; next try in {delay:.1f}s")
            return
        watched.pid = self._pid(watched.name)
        watched.started_at, watched.started_mono = self._started(watched.name)
        watched.restart_at = None
        watched.restarts += 1
        self.log(f"{watched.name} restarted (pid {watched.pid}; restart {watched.restarts})")

    def state(self) -> dict[str, Any]:
        processes = []
        for w in self.watched.values():
            processes.append({
                "name": w.name, "pid": w.pid, "started_at": w.started_at, "phase": w.phase,
                "restarts": w.restarts, "last_exit": w.last_exit,
                "restart_in_s": (max(0.0, w.restart_at - time.monotonic())
                                 if w.restart_at is not None else None),
                "probe": self.stack.probe(w.name)})
        return {"version": STATE_VERSION, "mcp_url": self.stack.mcp_url,
                "supervisor": {"pid": os.getpid(), "start_ticks": proctab.start_ticks(os.getpid()),
                               "started_at": self.started_at},
                "processes": processes}

    def write_state(self) -> None:
        write_private(self.state_path, json.dumps(self.state(), indent=2))

    def close(self) -> None:
        """The stack is stopping: `engram status` must not report it any more."""
        Path(self.state_path).unlink(missing_ok=True)


def load_state(data_dir: Path) -> tuple[dict[str, Any] | None, str]:
    """The running stack's state, or None and why it is not running."""
    path = data_dir / STATE_FILE
    try:
        state = json.loads(path.read_text())
    except FileNotFoundError:
        return None, f"engram is not running from {data_dir} (no {STATE_FILE})"
    except (OSError, ValueError) as exc:
        return None, f"engram's state file {path} is unreadable: {exc}"
    supervisor = state.get("supervisor", {})
    pid, ticks = int(supervisor.get("pid", 0)), supervisor.get("start_ticks")
    if not proctab.alive(pid) or (ticks is not None and proctab.start_ticks(pid) != ticks):
        return None, (f"engram is not running from {data_dir} (its engram up, pid {pid}, "
                      "is gone; the state file is stale)")
    return state, ""
