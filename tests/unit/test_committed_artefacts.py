"""A benchmark run leaves its artefact untracked until it is committed; the
docs tests read only committed artefacts, so `make test-unit` still passes
after any benchmark has run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..paths import REPO_ROOT

if str(REPO_ROOT / "evals") not in sys.path:
    sys.path.insert(0, str(REPO_ROOT / "evals"))

from report_common import artefacts, committed_artefacts  # noqa: E402


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
