"""evals/registry.py is the one list of benchmarks: each row's module exists
and runs as a module, each make target it names is in the Makefile and runs
that module, every `bench-*` target and every `make bench-*` the docs name is
a row, every committed artefact's kind belongs to a row, and each row's
report section is a heading of its page."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from evals.registry import BENCHMARKS, Benchmark, Role
from evals.report.common import committed_artefacts

from ..paths import REPO_ROOT

MAKEFILE = (REPO_ROOT / "Makefile").read_text()
RULE = re.compile(r"^([a-z][\w-]*)\s*:(?!=)[^\n]*\n((?:\t[^\n]*\n?)*)", re.MULTILINE)
RECIPES = {m[1]: m[2] for m in RULE.finditer(MAKEFILE)}
MAKE_BENCH = re.compile(r"\bmake (bench-[\w-]+)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)
ROWS = {b.name: b for b in BENCHMARKS}


def _module_file(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec and spec.origin, f"{module} does not resolve"
    return Path(spec.origin)


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", ""))
    return text.replace(" ", "-")


def test_names_and_kinds_are_unique():
    assert len(ROWS) == len(BENCHMARKS)
    kinds = [k for b in BENCHMARKS for k in b.kinds]
    assert len(kinds) == len(set(kinds)), "two rows claim one artefact kind"


@pytest.mark.parametrize("bench", BENCHMARKS, ids=lambda b: b.name)
def test_every_module_exists_and_runs_as_a_module(bench: Benchmark):
    source = _module_file(bench.module).read_text()
    assert 'if __name__ == "__main__":' in source, bench.module
    if bench.smoke is not None:
        assert "parse_with_smoke" in source or '"--smoke"' in source, \
            f"{bench.module} has smoke args but no --smoke"


@pytest.mark.parametrize("bench", [b for b in BENCHMARKS if b.target], ids=lambda b: b.name)
def test_every_make_target_runs_its_module(bench: Benchmark):
    assert bench.target in RECIPES, f"the Makefile has no {bench.target}"
    assert f"-m {bench.module}" in RECIPES[bench.target], \
        f"make {bench.target} does not run {bench.module}"


def test_every_bench_target_is_a_row():
    targets = {b.target for b in BENCHMARKS}
    extra = [t for t in RECIPES if t.startswith("bench-") and t != "bench-smoke"
             and t not in targets]
    assert not extra, f"bench targets with no row in evals/registry.py: {extra}"
    assert "-m evals.registry smoke" in RECIPES["bench-smoke"]


def test_only_benchmarks_have_make_targets():
    assert all(b.target is None for b in BENCHMARKS if b.role is not Role.BENCH)


def test_every_make_bench_the_docs_name_exists():
    pages = [REPO_ROOT / "README.md", REPO_ROOT / "CONTRIBUTING.md",
             REPO_ROOT / "evals" / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
    missing = [f"{p.relative_to(REPO_ROOT)}: make {t}" for p in pages
               for t in MAKE_BENCH.findall(p.read_text()) if t not in RECIPES]
    assert not missing, "\n".join(missing)


def test_every_committed_artefact_kind_belongs_to_a_row():
    kinds = {k for b in BENCHMARKS for k in b.kinds}
    stray = sorted({a.name for a in committed_artefacts() if a.kind not in kinds})
    assert not stray, f"artefacts of a kind no row of evals/registry.py writes: {stray}"


@pytest.mark.parametrize("bench", BENCHMARKS, ids=lambda b: b.name)
def test_every_report_section_is_a_heading_of_its_page(bench: Benchmark):
    page, _, anchor = bench.report.partition("#")
    path = REPO_ROOT / page
    assert path.is_file(), bench.report
    if anchor:
        assert anchor in {_slug(h) for h in HEADING.findall(path.read_text())}, bench.report


def test_the_smoke_command_passes_locomo_only_to_rows_that_read_it(tmp_path: Path):
    locomo = ROWS["locomo"].smoke_command(tmp_path)
    assert locomo[1:3] == ["-m", "evals.bench.locomo"]
    assert str(tmp_path / "bench" / "locomo10.json") in locomo
    assert "--data" not in ROWS["e2e"].smoke_command(tmp_path)
