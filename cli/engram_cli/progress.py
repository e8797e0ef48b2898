"""Progress bars for long CLI work (export, import, backup, restore): on
stderr, and only when stderr is a terminal, so piped or logged output and
scripts see exactly what they saw before."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Iterator
from typing import IO, TypeVar

from tqdm import tqdm

T = TypeVar("T")


def shown(stream: IO[str] | None = None) -> bool:
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


def bar(desc: str, total: int | None = None, unit: str = "row") -> tqdm:
    """A bar on stderr; disabled (prints nothing) when stderr is not a terminal."""
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr,
                disable=not shown(), dynamic_ncols=True, leave=False)


def track(items: Iterable[T], desc: str, total: int | None = None,
          unit: str = "row") -> Iterator[T]:
    with bar(desc, total, unit) as b:
        for item in items:
            yield item
            b.update(1)


def run_tool(cmd: list[str], env: dict[str, str], desc: str,
             total: int | None = None, umask: int = -1) -> tuple[int, str]:
    """Run pg_dump / pg_restore; on a terminal with --verbose, one bar step
    per object it reports. Returns the exit code and stderr without the
    verbose progress lines."""
    if not shown():
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, umask=umask)
        return done.returncode, done.stderr
    prog = cmd[0].rsplit("/", 1)[-1] + ": "
    kept: list[str] = []
    with bar(desc, total, unit="object") as b, subprocess.Popen(
            [*cmd, "--verbose"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, umask=umask) as proc:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith(prog) and not line.startswith((prog + "error", prog + "warning")):
                b.update(1)
            else:
                kept.append(line)
    return proc.returncode, "".join(kept)


def archive_entries(pg_restore: str, archive: str) -> int | None:
    """How many entries a custom-format archive holds (the restore bar's total)."""
    done = subprocess.run([pg_restore, "-l", archive], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return sum(1 for line in done.stdout.splitlines() if line and not line.startswith(";"))
