"""A stack that starts itself: `engram mcp-stdio --data-dir DIR` uses the
stack running on DIR, or starts one in the background (`engram up`, in a
session of its own, so it outlives the bridge), and `engram down` stops it.

`engram up` holds an exclusive lock on <data-dir>/engram-up.lock for its
whole life. The kernel drops the lock when the process ends, however it
ends, so a held lock means "a stack runs or starts here", with no stale pid
file to judge. Bridges take a second lock around their look-and-start, so
bridges started together start one stack between them."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from engram_runner.files import UnsafePath, open_log, private_dir
from engram_runner.supervisor import load_state

UP_LOCK = "engram-up.lock"
START_LOCK = "engram-start.lock"
UP_LOG = "up.log"
# `engram up` may find the lock held for a moment by a bridge looking at it.
UP_LOCK_WAIT_S = 2.0
# How long a started `engram up` may take to take its lock (it imports first).
SPAWN_WAIT_S = 60.0
# Beyond ENGRAM_START_TIMEOUT_S: the time `engram up` needs before and after
# the stack's own start (imports, initdb on a new data dir).
READY_MARGIN_S = 60.0
POLL_S = 0.1
_OPEN = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


class StackStartError(RuntimeError):
    """The stack a bridge needs could not be started or found."""


def _open_lock(path: Path) -> int:
    return os.open(path, _OPEN, 0o600)


def hold_up_lock(data_dir: Path) -> int | None:
    """For `engram up`: the lock's descriptor (kept open while the stack
    runs), or None when another `engram up` holds it. The holder's pid is
    written into the file for `engram down`."""
    fd = _open_lock(data_dir / UP_LOCK)
    deadline = time.monotonic() + UP_LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.05)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def up_lock_holder(data_dir: Path) -> int | None:
    """The pid of the `engram up` running on `data_dir` (0 while it has not
    written it yet), None when none runs."""
    try:
        fd = os.open(data_dir / UP_LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 32, 0).decode(errors="replace").strip()
            return int(text) if text.isdigit() else 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextmanager
def _start_lock(data_dir: Path) -> Iterator[None]:
    """Held while one bridge looks for a stack and starts one: only until
    the `engram up` it started holds the up lock, so never for long."""
    fd = _open_lock(data_dir / START_LOCK)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def running_url(data_dir: Path) -> str | None:
    """The MCP URL of the stack on `data_dir` once it is up (its `engram up`
    writes the state file when every service is ready), else None."""
    state, _ = load_state(data_dir)
    url = state.get("mcp_url") if state else None
    return url if isinstance(url, str) and url else None


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def _spawn(data_dir: Path) -> subprocess.Popen:
    """`engram up --background` in a session of its own (a client that kills
    the bridge's process group leaves the stack alone), its output in
    <data-dir>/logs/up.log, from this same installation."""
    logs = private_dir(data_dir / "logs")
    fd = open_log(logs / UP_LOG)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "engram_cli", "up", "--data-dir", str(data_dir),
             "--background"], stdin=subprocess.DEVNULL, stdout=fd, stderr=subprocess.STDOUT,
            cwd=data_dir, start_new_session=True, umask=0o077)
    finally:
        os.close(fd)


def _failed(data_dir: Path, child: subprocess.Popen | None, why: str) -> StackStartError:
    log = data_dir / "logs" / UP_LOG
    last = _tail(log)
    code = child.poll() if child is not None else None
    exited = f" (engram up exited with code {code})" if code is not None else ""
    return StackStartError(f"engram stack on {data_dir} {why}{exited}: "
                           f"{last or 'no output'}; see {log}")


def _wait_for_holder(data_dir: Path, child: subprocess.Popen) -> None:
    deadline = time.monotonic() + SPAWN_WAIT_S
    while up_lock_holder(data_dir) is None:
        if child.poll() is not None:
            raise _failed(data_dir, child, "did not start")
        if time.monotonic() > deadline:
            raise _failed(data_dir, child, f"did not start within {SPAWN_WAIT_S:.0f}s")
        time.sleep(POLL_S)


def ensure_stack(data_dir: Path, start_timeout_s: float,
                 say: Callable[[str], None]) -> str:
    """The MCP URL of the stack running on `data_dir`, started first when
    none runs there; waits while it starts. StackStartError says why not."""
    try:
        private_dir(data_dir)
    except (OSError, UnsafePath) as exc:
        raise StackStartError(f"engram stack on {data_dir} could not start: {exc}") from None
    if url := running_url(data_dir):
        return url
    child: subprocess.Popen | None = None
    with _start_lock(data_dir):
        if up_lock_holder(data_dir) is None:
            say(f"starting engram stack on {data_dir}… (log: {data_dir / 'logs' / UP_LOG})")
            child = _spawn(data_dir)
            _wait_for_holder(data_dir, child)
    timeout_s = start_timeout_s + READY_MARGIN_S
    deadline = time.monotonic() + timeout_s
    while (url := running_url(data_dir)) is None:
        if up_lock_holder(data_dir) is None:
            raise _failed(data_dir, child, "stopped while starting")
        if time.monotonic() > deadline:
            raise _failed(data_dir, child, f"was not ready within {timeout_s:.0f}s")
        time.sleep(POLL_S)
    if child is not None:
        say(f"engram stack on {data_dir} is up: {url} (it keeps running after this "
            f"bridge exits; `engram down --data-dir {data_dir}` stops it)")
    return url


def stop_stack(data_dir: Path, timeout_s: float) -> str:
    """`engram down`: SIGTERM to the `engram up` holding the data dir's lock
    (it stops its processes as on Ctrl-C), then wait for the lock to drop."""
    pid = up_lock_holder(data_dir)
    if pid is None:
        return f"no engram stack runs on {data_dir}"
    deadline = time.monotonic() + timeout_s
    while pid == 0 and time.monotonic() < deadline:  # it has only just taken the lock
        time.sleep(POLL_S)
        pid = up_lock_holder(data_dir)
    if pid is None:
        return f"no engram stack runs on {data_dir}"
    if pid == 0:
        raise StackStartError(f"the engram up on {data_dir} wrote no pid in {UP_LOCK}")
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    while up_lock_holder(data_dir) is not None:
        if time.monotonic() > deadline:
            raise StackStartError(f"engram up (pid {pid}) on {data_dir} did not stop within "
                                  f"{timeout_s:.0f}s; see {data_dir / 'logs'}")
        time.sleep(POLL_S)
    return f"stopped the engram stack on {data_dir} (engram up, pid {pid})"
