"""Progress bars on long CLI work: shown on stderr when it is a terminal,
absent when it is not (scripts, CI and logs see what they saw before).
Backup and export run against the session stack, once through a
pseudo-terminal and once through pipes."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from engram_runner.stack import Stack

from ..conftest import TEST_PORT_OFFSET

BAR = "\r"  # a redrawn bar line; plain output never carries one


def in_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdin, stdout and stderr are the terminal, 100 columns
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        os.execvpe(args[0], args, env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode(errors="replace")


def cli(stack: Stack, *args: str) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "ENGRAM_PORT_OFFSET": str(TEST_PORT_OFFSET),
           "ENGRAM_BACKUP_PASSPHRASE": "a passphrase for the test"}
    return ([sys.executable, "-m", "engram_cli", *args, "--data-dir",
             str(stack.data_dir)], env)


def test_track_is_silent_without_a_terminal() -> None:
    code = ("from engram_cli.progress import track\n"
            "assert list(track(range(500), 'export', 500, 'table')) == list(range(500))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == ""
    assert BAR not in done.stderr and "%|" not in done.stderr
    rc, out = in_terminal([sys.executable, "-c", code], dict(os.environ))
    assert rc == 0 and "export" in out and "/500" in out and BAR in out


def test_backup_shows_a_bar_only_on_a_terminal(stack: Stack, tmp_path: Path) -> None:
    args, env = cli(stack, "backup", "--out", str(tmp_path / "tty"))
    rc, out = in_terminal(args, env)
    assert rc == 0, out
    assert "backup" in out and "object" in out and BAR in out
    assert "backup written" in out
    assert len(list((tmp_path / "tty").glob("engram-*.dump"))) == 1

    args, env = cli(stack, "backup", "--out", str(tmp_path / "pipe"))
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert BAR not in done.stderr and "%|" not in done.stderr and BAR not in done.stdout


def test_export_shows_a_bar_only_on_a_terminal(stack: Stack, tmp_path: Path) -> None:
    args, env = cli(stack, "export", "--out", str(tmp_path / "tty.jsonl"))
    rc, out = in_terminal(args, env)
    assert rc == 0, out
    assert "export" in out and "table" in out and BAR in out

    args, env = cli(stack, "export", "--out", str(tmp_path / "pipe.jsonl"))
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert BAR not in done.stderr and "%|" not in done.stderr
    assert done.stdout.startswith("exported ")
