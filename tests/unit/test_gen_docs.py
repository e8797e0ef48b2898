"""The doc tables that mirror code are generated (scripts/gen_docs.py) and
current: each region is rendered again in memory and compared with the page."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scripts import doc_sources as src
from scripts import gen_docs as gen

from ..paths import REPO_ROOT


@pytest.mark.parametrize("page", sorted(gen.PAGES))
def test_every_generated_region_is_current(page: str):
    text = (REPO_ROOT / page).read_text()
    assert gen.updated(page, text) == text, f"{page} is stale: run make docs"


def test_an_edited_region_is_rendered_back():
    page = "docs/architecture.md"
    text = (REPO_ROOT / page).read_text()
    edited = text.replace(", SessionChanges |", " |", 1)
    assert edited != text
    assert gen.updated(page, edited) == text


def test_a_page_that_lost_its_region_is_an_error():
    page = "docs/decisions/README.md"
    text = (REPO_ROOT / page).read_text()
    without = gen.REGION.sub("", text)
    with pytest.raises(gen.MissingRegion):
        gen.updated(page, without)
    with pytest.raises(gen.MissingRegion):
        gen.updated("elsewhere", "<!-- generated: no-such-table -->\n<!-- /generated -->")


def test_a_new_decision_record_is_listed_from_its_file(tmp_path: Path, monkeypatch):
    """Branches that each add a record merge by regenerating: the list is
    the files present, titled by their first heading."""
    for path in (REPO_ROOT / "docs" / "decisions").glob("0*.md"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "0099-a-new-rule.md").write_text("# 0099 A new rule | with a pipe\n\nStatus: x.\n")
    monkeypatch.setattr(src, "DECISIONS_DIR", tmp_path)
    rows = gen.render_decisions()
    assert rows[-1] == "| [0099](0099-a-new-rule.md) | A new rule \\| with a pipe |"
    assert len(rows) == 2 + len(list(tmp_path.glob("0*.md")))


def test_every_rpc_in_the_protos_is_documented():
    page = (REPO_ROOT / "docs" / "rpcs.md").read_text()
    declared = re.findall(r"^\s*rpc\s+(\w+)", "\n".join(
        p.read_text() for p in sorted((REPO_ROOT / "proto").rglob("*.proto"))), re.MULTILINE)
    assert declared
    for name in declared:
        assert f"| `{name}` |" in page, name
    cortex = (REPO_ROOT / "proto/engram/v1/cortex.proto").read_text()
    arch = (REPO_ROOT / "docs" / "architecture.md").read_text()
    for name in re.findall(r"^\s*rpc\s+(\w+)", cortex, re.MULTILINE):
        assert re.search(rf"[ ,]{name}[, ]", arch), f"{name} missing from the cortex table"


def test_every_service_has_a_servicer():
    found = src.servicers()
    for service in src.proto_services():
        assert service.name in found, f"no servicer implements {service.name}"


def test_the_make_targets_table_names_every_phony_target():
    makefile = (REPO_ROOT / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.MULTILINE)
    assert phony
    page = (REPO_ROOT / "CONTRIBUTING.md").read_text()
    for target in phony.group(1).split():
        assert f"| `make {target}` |" in page, target


def test_the_makefile_reader_handles_continuations_and_calls():
    assert src._without_make_calls("setup $(if $(shell x),a $(B)) c") == "setup  c"
    lint = next(t for t in src.make_targets() if t.name == "lint")
    assert lint.recipe == ("$(VENV)/bin/ruff check .", "$(VENV)/bin/pyright")
    line = gen.render_make_lint()[0]
    assert "`ruff check .`" in line and "`pyright`" in line


def _layout_rows() -> list[str]:
    text = (REPO_ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Layout\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, re.MULTILINE)


def test_the_layout_names_every_top_level_folder_and_only_real_paths():
    rows = _layout_rows()
    assert rows
    for row in rows:
        assert list(REPO_ROOT.glob(re.sub(r"<[^>]*>", "*", row).rstrip("/"))), row
    tops = {row.split("/", 1)[0] for row in rows}
    listed = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked folders are unknown")
    tracked = {line.split("/", 1)[0] for line in listed.stdout.splitlines()
               if "/" in line and not line.startswith(".")}
    assert tracked <= tops, f"folders missing from architecture.md#layout: {tracked - tops}"
