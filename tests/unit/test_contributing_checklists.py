"""The checklists in CONTRIBUTING.md ("Adding a tool", "Adding a field", ...)
name real things: every repository path a checklist section names exists,
and every `make` target it names is in the Makefile. Every section holding a
`- [ ]` item is walked, so a new checklist is checked without a new test.
The paths README.md and docs/ name are walked too.

A path is a code span token that starts with a top-level entry of the
repository, or ends in a known file suffix (a bare `registry.py` must exist
somewhere). `<name>` and `*` are wildcards that must match; `NNNN` marks a
file the reader creates, so only its folder must exist.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

import pytest

from ..paths import REPO_ROOT

CONTRIBUTING = REPO_ROOT / "CONTRIBUTING.md"
SECTION = re.compile(r"^## (.+)$", re.MULTILINE)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
MAKE = re.compile(r"\bmake ([a-z][\w-]*)")
TARGET = re.compile(r"^([a-z][\w-]*)\s*:(?!=)", re.MULTILINE)
PATH_TOKEN = re.compile(r"^[\w.<>*/-]+$")
SUFFIXES = (".py", ".sql", ".proto", ".md", ".toml", ".yml", ".yaml", ".json", ".lock",
            ".sh", ".html", ".png", ".conf", ".txt", ".example")
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".cache", ".pytest_cache",
             ".ruff_cache", ".hypothesis", ".schemathesis", "build", "dist"}
NEW_FILE = "NNNN"


def repo_paths(root: Path = REPO_ROOT) -> set[str]:
    """Every file and folder of the checkout (not the environment or caches),
    relative, with `/` separators; folders end without a slash."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        rel = Path(folder).relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
        if prefix:
            found.add(rel)
        found.update(prefix + name for name in files)
    return found


def checklist_sections(text: str) -> dict[str, str]:
    """Title -> body of every `## ` section that holds a `- [ ]` item."""
    parts = SECTION.split(text)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    return {title: body for title, body in sections.items() if "- [ ]" in body}


def named_paths(body: str, top_level: set[str]) -> list[str]:
    out = []
    for span in CODE_SPAN.findall(body):
        for token in span.split():
            token = token.strip("(),;:'\"").rstrip(".")
            if not token or not PATH_TOKEN.match(token):
                continue
            first = token.split("/", 1)[0]
            if ("/" in token and first in top_level) or token.endswith(SUFFIXES):
                out.append(token.rstrip("/"))
    return out


def _pattern(token: str) -> str:
    return re.sub(r"<[^>]*>", "*", token)


def exists(token: str, paths: set[str], top_level: set[str]) -> bool:
    if NEW_FILE in token:
        token = token.rsplit("/", 1)[0] if "/" in token else ""
        if not token:
            return True
    pattern = _pattern(token)
    if token.split("/", 1)[0] not in top_level:
        pattern = "*" + pattern if pattern.startswith("*") else "*/" + pattern
        if any(fnmatch.fnmatchcase(p, _pattern(token)) for p in paths):
            return True
    return any(fnmatch.fnmatchcase(p, pattern) for p in paths)


def named_targets(body: str) -> list[str]:
    return [t for span in CODE_SPAN.findall(body) for t in MAKE.findall(span)]


PATHS = repo_paths()
TOP = {p for p in PATHS if "/" not in p}
SECTIONS = checklist_sections(CONTRIBUTING.read_text())


def test_there_are_checklists_to_walk():
    assert {"Adding a tool", "Adding an RPC", "Adding a migration", "Adding a field",
            "Adding a setting", "Adding a benchmark"} <= SECTIONS.keys()


@pytest.mark.parametrize("title", sorted(SECTIONS))
def test_every_path_a_checklist_names_exists(title: str):
    named = named_paths(SECTIONS[title], TOP)
    assert named, f"{title} names no path"
    missing = [token for token in named if not exists(token, PATHS, TOP)]
    assert not missing, f"{title} names paths that do not exist: {missing}"


@pytest.mark.parametrize("title", sorted(SECTIONS))
def test_every_make_target_a_checklist_names_exists(title: str):
    targets = set(TARGET.findall((REPO_ROOT / "Makefile").read_text()))
    missing = [t for t in named_targets(SECTIONS[title]) if t not in targets]
    assert not missing, f"{title} names make targets the Makefile lacks: {missing}"


def test_adding_a_field_walks_every_hop():
    """The field checklist names the migration's view, the lock, the repo,
    the contract, the servicer, the gateway, the docs and the tests."""
    body = SECTIONS["Adding a field"]
    for must in ("live_entries", "make migrations-lock", "repo.py", "memory.proto",
                 "make proto", "servicer_common.py", "shaping/common.py", "tools/memory.py",
                 "make docs", "tests/integration/"):
        assert must in body, must


def test_adding_a_benchmark_walks_every_hop():
    """The benchmark checklist names the module's folder, the registry, the
    Makefile, the report, the README of evals and the docs."""
    body = SECTIONS["Adding a benchmark"]
    for must in ("evals/bench/", "evals/harness/benchlib.py", "evals/registry.py", "Makefile",
                 "tests/unit/test_bench_registry.py", "evals/report/pages.py",
                 "evals/README.md", "make bench-smoke", "make docs", "git add"):
        assert must in body, must


def test_the_walker_catches_what_it_should():
    paths = {"services", "services/memory", "services/memory/engram_memory",
             "services/memory/engram_memory/repo.py",
             "services/memory/engram_memory/migrations",
             "services/memory/engram_memory/migrations/0001_entries.sql"}
    top = {"services"}
    body = ("- [ ] edit `services/memory/engram_memory/repo.py` and `repo*.py`, add "
            "`services/<s>/engram_<s>/migrations/NNNN_x.sql`, then `make proto`; "
            "not `services/memory/engram_memory/gone.py` nor `gone.sql`, "
            "nor `services/nowhere/NNNN_x.sql`")
    named = named_paths(body, top)
    assert [t for t in named if not exists(t, paths, top)] == [
        "services/memory/engram_memory/gone.py", "gone.sql", "services/nowhere/NNNN_x.sql"]
    assert named_targets(body) == ["proto"]
    assert "console.ops.run" not in named_paths("`console.ops.run`", top)


# MCP method names that look like paths under tools/.
MCP_METHODS = re.compile(r"^(tools|resources|prompts)/(list|call|read|list_changed)$")


def test_every_repo_path_the_docs_name_exists():
    """The same walk over README.md and docs/ (decision records excepted:
    they are history, and name what was there when they were taken), for
    paths that start with a top-level folder."""
    pages = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
    missing = []
    for page in pages:
        if "decisions" in page.relative_to(REPO_ROOT).parts:
            continue
        for token in named_paths(page.read_text(), TOP):
            if ("/" not in token or MCP_METHODS.match(token)
                    or token.count("<") != token.count(">")):
                continue
            if token.split("/", 1)[0] in TOP and not exists(token, PATHS, TOP):
                missing.append(f"{page.relative_to(REPO_ROOT)}: {token}")
    assert not missing, "\n".join(missing)
