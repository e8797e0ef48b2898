"""What a PID is, read from /proc: alive or not, which program, which
directory. Off Linux (no /proc) the answers are the cautious ones: a live PID
might be anything, so nothing is judged stale."""

from __future__ import annotations

import os
import signal
from pathlib import Path

PROC = Path("/proc")


def has_proc() -> bool:
    return (PROC / "self" / "stat").exists()


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (state first)."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def alive(pid: int) -> bool:
    """A running process (a zombie is dead: it only waits to be reaped)."""
    if pid <= 0:
        return False
    if has_proc():
        fields = _stat_fields(pid)
        return fields is not None and fields[0] not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start_ticks(pid: int) -> int | None:
    """When the process started (clock ticks since boot): with the PID, an
    identity that survives PID reuse."""
    fields = _stat_fields(pid)
    return int(fields[19]) if fields is not None else None


def parent(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields is not None else None


def _link(pid: int, name: str) -> str | None:
    try:
        return os.readlink(PROC / str(pid) / name).removesuffix(" (deleted)")
    except OSError:  # gone, a zombie, or another user's process
        return None


def is_postgres_of(pid: int, pgdata: Path) -> bool:
    """A live `postgres` process working in `pgdata` (a postmaster or
    standalone server chdirs into its data directory; its backends inherit it)."""
    if not alive(pid):
        return False
    if not has_proc():
        return True  # cannot tell: assume it is, and touch nothing
    exe, cwd = _link(pid, "exe"), _link(pid, "cwd")
    return (exe is not None and os.path.basename(exe) == "postgres"
            and cwd is not None and os.path.realpath(cwd) == os.path.realpath(pgdata))


def postgres_processes_of(pgdata: Path) -> list[int]:
    """Every live postgres process of `pgdata`, e.g. backends left behind by
    a postmaster that was killed."""
    if not has_proc():
        return []
    return [int(e.name) for e in PROC.iterdir()
            if e.name.isdigit() and is_postgres_of(int(e.name), pgdata)]


def describe_exit(code: int) -> str:
    """A Popen return code in words: negative means killed by that signal."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown"
        return f"killed by signal {-code} ({name})"
    return f"exit code {code}"
