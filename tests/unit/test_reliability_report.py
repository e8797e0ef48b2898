"""The reliability artefact's peer figures and the README block it feeds."""

from __future__ import annotations

import sys

import pytest

from ..paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "evals"))

from reliability_peer import compare  # noqa: E402
from report import f, table  # noqa: E402
from report_reliability import README_BEGIN, README_END, peer_section, with_readme_block  # noqa: E402


def test_compare_puts_engram_beside_the_peer_with_latency_ratios():
    engram = {"kill_each": {"read_back": {"lost_stores": 0, "duplicate_entries": 0,
                                          "acknowledged_stores": 10},
                            "recovered_by_itself": True,
                            "recoveries": [{"target": "gateway", "recovery_s": 2.0},
                                           {"target": "postgres", "recovery_s": 3.0}]},
              "concurrency": {"agents": 5, "errors": 0, "load": {"calls": 100},
                              "latency": {"memory_store": {"p50_ms": 100.0, "p95_ms": 200.0,
                                                           "p99_ms": 400.0}}}}
    peer = {"kill": {"read_back": {"lost_stores": 1, "duplicate_entries": 0,
                                   "acknowledged_stores": 8},
                     "recovered_by_itself": False,
                     "recoveries": [{"target": "daemon", "seconds": 20.0},
                                    {"target": "postgres", "seconds": 50.0}]},
            "concurrency": {"agents": 5, "error_rate": 0.1,
                            "latency": {"memory_store": {"p50_ms": 50.0, "p95_ms": 200.0,
                                                         "p99_ms": 800.0}}}}
    out = compare(engram, peer)
    assert out["kill"]["lost_stores"] == {"engram": 0, "peer": 1}
    assert out["kill"]["front_process_back_after_s"] == {"engram": 2.0, "peer": 20.0}
    assert out["kill"]["postgres_back_after_s"] == {"engram": 3.0, "peer": 50.0}
    store = out["concurrency"]["latency"]["memory_store"]
    assert [store[q]["ratio"] for q in ("p50_ms", "p95_ms", "p99_ms")] == [0.5, 1.0, 2.0]
    assert out["concurrency"]["error_rate"] == {"engram": 0.0, "peer": 0.1}


def test_a_peer_that_failed_shows_its_error_not_a_number():
    text = "\n".join(peer_section({"name": "pseudolife-mcp[lite]==0.19.0", "status": "failed",
                                   "error": "pip install failed (exit 1): no torch"}, f, table))
    assert "failed: pip install failed (exit 1): no torch" in text
    assert "|" not in text


def test_the_readme_block_needs_its_markers():
    with pytest.raises(ValueError, match="markers"):
        with_readme_block("# engram\n", ["x"])
    text = f"a\n{README_BEGIN}\nold\n{README_END}\nb\n"
    assert with_readme_block(text, [README_BEGIN, "new", README_END]) == \
        f"a\n{README_BEGIN}\nnew\n{README_END}\nb\n"
