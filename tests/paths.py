"""Where the checkout is, for tests that read its files (docs, compose,
scripts): the tests' own root, not where an installed package lives."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
