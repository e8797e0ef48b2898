"""The documentation stays true: every relative link resolves (the file exists,
and the heading exists where an anchor is given), no link leaves the
repository, comments point only at docs that exist, and the generated pages
(limits, benchmarks) match their sources."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from evals.report import pages
from evals.report.common import committed_artefacts

from ..paths import REPO_ROOT

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`+[^`\n]*`+")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
ANCHOR_TAG = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
# paths of docs pages (and CONTRIBUTING.md) named in code and comments
CODE_DOC_REF = re.compile(r"\b((?:docs/[\w./-]+\.md|CONTRIBUTING\.md)(?:#[\w-]+)?)")
CODE_DIRS = ["services", "kit", "cli", "proto", "evals", "scripts", "tests", "deploy"]


def doc_files() -> list[Path]:
    docs = sorted((REPO_ROOT / "docs").rglob("*.md"))
    return [REPO_ROOT / "README.md", REPO_ROOT / "CONTRIBUTING.md", *docs]


def prose(text: str) -> str:
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation
    dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    seen: dict[str, int] = {}
    found = set(ANCHOR_TAG.findall(text))
    for _, title in HEADING.findall(text):
        base = slug(title)
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return found


def check_target(source: Path, target: str) -> str | None:
    """None if `target` (relative to `source`) resolves, else why not."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
        return f"points outside the repository: {target}"
    path_part, _, anchor = target.partition("#")
    resolved = (source.parent / path_part).resolve() if path_part else source.resolve()
    if not resolved.is_relative_to(REPO_ROOT.resolve()):
        return f"points outside the repository: {target}"
    if not resolved.exists():
        return f"no such file: {target}"
    if anchor:
        if resolved.suffix != ".md":
            return f"anchor on a file that is not markdown: {target}"
        if anchor not in anchors(resolved):
            return f"no heading for #{anchor} in {resolved.relative_to(REPO_ROOT)}"
    return None


def test_the_readme_is_a_front_door():
    assert len((REPO_ROOT / "README.md").read_text().splitlines()) <= 300
    text = (REPO_ROOT / "README.md").read_text()
    for must in ("make up", "make test", "## Connect an agent", "docs/security.md"):
        assert must in text


@pytest.mark.parametrize("doc", doc_files(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_link_resolves(doc: Path):
    broken = [f"{target}: {why}" for target in LINK.findall(prose(doc.read_text()))
              if (why := check_target(doc, target))]
    assert not broken, "\n".join(broken)


def test_comments_point_only_at_docs_that_exist():
    broken = []
    for folder in CODE_DIRS:
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.suffix not in {".py", ".proto", ".sql", ".sh", ".yml", ".conf"}:
                continue
            for ref in CODE_DOC_REF.findall(path.read_text(errors="replace")):
                why = check_target(REPO_ROOT / "x", ref)
                if why:
                    broken.append(f"{path.relative_to(REPO_ROOT)}: {why}")
    assert not broken, "\n".join(broken)


def test_nothing_cites_documents_outside_the_repository():
    bad = re.compile(r"DESIGN\.md|\.\./shared|/work/shared/reference")
    found = []
    for folder in CODE_DIRS + ["docs"]:
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".proto", ".sql", ".md", ".sh", ".yml"}:
                if path.name == "test_docs.py":
                    continue
                found += [f"{path.relative_to(REPO_ROOT)}" for _ in bad.findall(path.read_text())]
    for top in ("README.md", "CONTRIBUTING.md"):
        found += [top for _ in bad.findall((REPO_ROOT / top).read_text())]
    assert not found, sorted(set(found))


def test_the_link_checker_catches_what_it_should(tmp_path: Path):
    page = REPO_ROOT / "docs" / "architecture.md"
    assert check_target(page, "security.md") is None
    assert check_target(page, "#serving-labels") is None
    assert check_target(page, "security.md#no-such-heading")
    assert check_target(page, "missing.md")
    assert check_target(page, "https://example.org/")
    assert check_target(page, "../../outside.md")
    assert slug("How `memory_search` ranks") == "how-memory_search-ranks"
    assert slug("Where a store's time goes") == "where-a-stores-time-goes"


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_limits_page_is_generated_from_the_settings():
    gen = _load(REPO_ROOT / "scripts" / "gen_limits_doc.py", "gen_limits_doc")
    page = (REPO_ROOT / "docs" / "limits.md").read_text()
    assert gen.updated(page) == page, \
        "docs/limits.md is stale: run python scripts/gen_limits_doc.py"


def test_the_limits_page_names_every_setting():
    gen = _load(REPO_ROOT / "scripts" / "gen_limits_doc.py", "gen_limits_doc")
    page = (REPO_ROOT / "docs" / "limits.md").read_text()
    for _, rel in gen.MODULES:
        for _, _, found in gen.settings_of(REPO_ROOT / rel):
            for setting in found:
                assert f"`{setting.env}`" in page


def _committed() -> list:
    """The committed artefacts (evals.report.common.committed_artefacts): an
    artefact a benchmark run just wrote is not read until it is committed."""
    return committed_artefacts()


def test_the_benchmarks_page_is_generated_from_the_artefacts():
    page = (REPO_ROOT / "docs" / "benchmarks.md").read_text()
    assert pages.render(_committed()) == page, \
        "docs/benchmarks.md is stale: run python -m evals.report.pages"
    for image in re.findall(r"\]\((img/[\w.-]+\.png)\)", page):
        assert (REPO_ROOT / "docs" / image).exists(), image


def test_the_readme_reliability_table_is_generated_from_the_artefact():
    text = (REPO_ROOT / "README.md").read_text()
    assert "make bench-reliability" in text
    assert pages.readme(_committed(), text) == text, \
        "README.md's reliability table is stale: run python -m evals.report.pages"


def test_the_scaling_page_is_generated_from_the_artefacts():
    text = (REPO_ROOT / "docs" / "scaling.md").read_text()
    assert "make bench-capacity" in text
    assert pages.scaling(_committed(), text) == text, \
        "docs/scaling.md's capacity model is stale: run python -m evals.report.pages"
