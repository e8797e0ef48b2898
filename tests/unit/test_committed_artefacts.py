"""A benchmark run leaves its artefact untracked until it is committed; the
docs tests read only committed artefacts, so `make test-unit` still passes
after any benchmark has run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from evals.report.common import artefacts, committed_artefacts


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_an_untracked_artefact_is_not_read_until_committed(tmp_path: Path) -> None:
    results = tmp_path / "evals" / "results"
    results.mkdir(parents=True)
    _git(tmp_path, "init", "-q")
    (results / "peers-20261201T000000Z.json").write_text("{}")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    (results / "peers-20261204T000000Z.json").write_text("{}")  # a benchmark just ran

    assert [a.stamp for a in artefacts(results)] == ["20261201T000000Z", "20261204T000000Z"]
    assert [a.stamp for a in committed_artefacts(results)] == ["20261201T000000Z"]
    _git(tmp_path, "add", ".")
    assert len(committed_artefacts(results)) == 2  # staged counts: it is about to be committed


def test_outside_a_git_checkout_every_artefact_counts(tmp_path: Path) -> None:
    (tmp_path / "peers-20261201T000000Z.json").write_text("{}")
    assert len(committed_artefacts(tmp_path)) == 1


def test_a_fresh_run_in_evals_results_leaves_the_generated_docs_current() -> None:
    """What `make test-unit` meets after a benchmark ran: a newer artefact of
    every committed kind, untracked, in the real evals/results/. The pages
    render as committed, and `make docs` (which reads the same) keeps them."""
    from evals.report import pages
    from evals.report.common import RESULTS, ROOT, latest

    committed = committed_artefacts()
    fresh = []
    try:
        for kind in sorted({a.kind for a in committed}):
            newest = latest(committed, kind)
            if newest is None:
                continue
            data = newest.load()
            path = RESULTS / f"{kind}-29991231T235959Z.json"
            assert not path.exists(), path
            path.write_text(json.dumps({**data, "command": "a run nobody committed"}))
            fresh.append(path)
        assert {p.name for p in fresh} <= {a.name for a in artefacts()}
        assert committed_artefacts() == committed
        assert pages.render(committed_artefacts()) == (ROOT / "docs" / "benchmarks.md").read_text()
        readme = (ROOT / "README.md").read_text()
        assert pages.readme(committed_artefacts(), readme) == readme
    finally:
        for path in fresh:
            path.unlink(missing_ok=True)


def test_only_the_newest_of_each_kind_and_the_cited_ones_are_kept() -> None:
    """A superseded artefact that nothing cites is removed when its successor
    lands (CONTRIBUTING.md, Adding a benchmark)."""
    from evals.report.common import ROOT

    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                            capture_output=True, timeout=30).stdout.decode().split("\0")
    cited = "".join((ROOT / name).read_text(errors="ignore") for name in listed
                    if name and not name.startswith("evals/results/") and (ROOT / name).is_file()
                    and name.endswith((".md", ".py", ".json", ".sh")))
    kept = committed_artefacts()
    newest = {(a.kind, a.variant): a.stamp for a in sorted(kept, key=lambda a: a.stamp)}
    stale = [a.name for a in kept if newest[(a.kind, a.variant)] != a.stamp and a.name not in cited]
    assert not stale, f"superseded and cited nowhere: git rm {' '.join(stale)}"
