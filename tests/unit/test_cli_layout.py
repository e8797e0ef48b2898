"""The CLI stays in parts: its commands in subpackages, a short top level,
and the embedded runner a package of its own that never imports the CLI
(tests, benchmarks and the CLI drive the runner, not the reverse)."""

from __future__ import annotations

import ast
from pathlib import Path

from ..paths import REPO_ROOT

CLI = REPO_ROOT / "cli" / "engram_cli"
RUNNER = REPO_ROOT / "cli" / "engram_runner"
MAX_TOP_LEVEL = 15


def top_level(package: Path) -> list[str]:
    """The package's modules and subpackages (what a reader scans first)."""
    return sorted(p.name for p in package.iterdir()
                  if (p.suffix == ".py" and p.is_file()) or (p / "__init__.py").is_file())


def imported(package: Path) -> set[str]:
    found = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
    return found


def test_the_cli_has_at_most_15_entries_at_its_top_level():
    entries = top_level(CLI)
    assert "main.py" in entries and "hooks" in entries
    assert len(entries) <= MAX_TOP_LEVEL, entries


def test_the_runner_never_imports_the_cli():
    runner = imported(RUNNER)
    assert "engram_runner.stack" in runner
    assert [m for m in runner if m.split(".")[0] == "engram_cli"] == []


def test_architecture_md_names_every_part():
    text = (REPO_ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## The CLI and the runner", 1)[1].split("\n## ", 1)[0]
    parts = [f"`{name}`" for name in top_level(CLI) + top_level(RUNNER)
             if name not in ("__init__.py", "__main__.py")]
    assert [p for p in parts if p not in section] == []
