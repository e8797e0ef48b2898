"""What every report module shares: the artefacts under evals/results/ and
the way a number and a table are written."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "evals" / "results"
NAME = re.compile(r"^(?P<kind>[a-z][a-z-]*?)-(?P<ts>\d{8}T\d{6}Z)"
                  r"(?P<variant>-[A-Za-z0-9-]+)?\.json$")


@dataclass(frozen=True)
class Artefact:
    kind: str
    stamp: str
    variant: str
    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    def load(self) -> dict[str, Any]:
        return json.loads(self.path.read_text())


def artefacts(results: Path = RESULTS) -> list[Artefact]:
    found = []
    for path in sorted(results.glob("*.json")):
        m = NAME.match(path.name)
        if m:
            found.append(Artefact(m["kind"], m["ts"], (m["variant"] or "").lstrip("-"), path))
    return found


def committed_artefacts(results: Path = RESULTS) -> list[Artefact]:
    """The artefacts git tracks: what the committed docs are generated from.
    A benchmark run leaves its artefact untracked until it is committed, and
    the docs tests must not fail because one was run. Outside a git checkout
    every artefact counts."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", "."], cwd=results, check=True,
                                capture_output=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return artefacts(results)
    tracked = {name.decode() for name in listed.split(b"\0") if name}
    return [a for a in artefacts(results) if a.name in tracked]


def latest(found: list[Artefact], kind: str) -> Artefact | None:
    plain = [a for a in found if a.kind == kind and not a.variant]
    return max(plain, key=lambda a: a.stamp) if plain else None


def latest_variant(found: list[Artefact], kind: str, prefix: str) -> Artefact | None:
    """The newest artefact of `kind` whose variant starts with `prefix`."""
    hits = [a for a in found if a.kind == kind and a.variant.startswith(prefix)]
    return max(hits, key=lambda a: a.stamp) if hits else None


def f(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}".replace(",", " ")


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *["| " + " | ".join(r) + " |" for r in rows], ""]


def source(a: Artefact, data: dict[str, Any]) -> str:
    cmd = data.get("command", "")
    return f"Artefact `evals/results/{a.name}`" + (f"; command `{cmd}`." if cmd else ".")


def between_markers(text: str, begin: str, end: str, block: list[str]) -> str:
    """`text` with its marked block (markers included in `block`) replaced;
    unchanged when either marker is missing."""
    head, sep, rest = text.partition(begin)
    _, sep2, tail = rest.partition(end)
    if not sep or not sep2:
        return text
    return head + "\n".join(block) + tail
