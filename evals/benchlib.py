"""Helpers every benchmark script shares."""

from __future__ import annotations

import shlex
import signal
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def command_line() -> str:
    """The command that produced an artefact, with repo-relative paths."""
    def rel(path: Path) -> str:
        return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)

    return shlex.join([rel(Path(sys.executable)), rel(Path(sys.argv[0]).resolve()),
                       *sys.argv[1:]])


def stop_stack_on_sigterm() -> None:
    """A benchmark stops the stack it started in a `finally`; SIGTERM (a
    killed run, a CI timeout) would skip it and leave the services and the
    embedded Postgres running. Raise SystemExit instead, so it unwinds."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
