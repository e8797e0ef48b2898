"""Secrets of an embedded stack, minted once and kept owner-only."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from engram_runner.files import PRIVATE_FILE, write_atomic


def load_or_mint(path: Path, names: list[str]) -> dict[str, str]:
    """Every required compose variable gets a random value, stable across starts."""
    known: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
    missing = [n for n in names if not known.get(n)]
    if missing:
        known.update({n: mint(n) for n in missing})
        write_private(path, json.dumps(known, indent=2))
    return known


def mint(name: str) -> str:
    """A random secret. NATS passwords start with a letter: nats-server parses
    them from its environment as config values, where `123-45` is a date."""
    value = secrets.token_urlsafe(24)
    return "n" + value if name.startswith("ENGRAM_NATS_") else value


def write_private(path: Path, text: str) -> None:
    """Written 0600 from the start into a new file, then renamed over the old
    one: never through a planted link, never readable half-written."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_atomic(path, text.encode(), PRIVATE_FILE)
