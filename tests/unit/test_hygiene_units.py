"""Pure parts of tidying: single-link clustering of entry vectors, the terms
that say why entries were grouped, the 24-hour counts under an injected
clock, and a namespace's share of table sizes."""

from __future__ import annotations

import numpy as np

from engram_kit.recent_counts import RecentCounts
from engram_memory.consolidation import cluster, terms
from engram_memory.rows_documents import TableSize
from engram_memory.stats import apportioned_bytes


def test_cluster_joins_similar_rows_and_drops_singletons():
    vectors = np.array([[1.0, 0.0, 0.0], [0.99, 0.05, 0.0], [0.97, 0.1, 0.05],
                        [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
    groups = cluster(vectors, 0.95)
    assert [sorted(g) for g, _ in groups] == [[0, 1, 2]]
    weakest = groups[0][1]
    assert 0.95 <= weakest < 1.0
    assert cluster(vectors[:1], 0.5) == []
    assert cluster(vectors[3:], 0.5) == []


def test_terms_ignore_stop_words_and_trailing_punctuation():
    assert terms("The billing service is deployed to production.") == {
        "billing", "service", "deployed", "production"}


def test_recent_counts_forget_what_is_older_than_the_window():
    clock = [0.0]
    counts = RecentCounts(window_s=24 * 3600, bucket_s=3600, now=lambda: clock[0])
    counts.add("a")
    counts.add("a", 2)
    counts.add("b")
    assert counts.total("a") == 3 and counts.total("b") == 1 and counts.total("c") == 0
    clock[0] = 23 * 3600.0
    counts.add("a")
    assert counts.total("a") == 4
    clock[0] = 25 * 3600.0
    assert counts.total("a") == 1, "the first hour's three fell out of the window"


def test_recent_counts_cap_the_namespaces_kept():
    counts = RecentCounts(max_namespaces=2, now=lambda: 0.0)
    for ns in ("a", "b", "c"):
        counts.add(ns)
    assert (counts.total("a"), counts.total("b"), counts.total("c")) == (0, 1, 1)


def test_storage_is_the_namespace_share_of_each_table():
    sizes = [TableSize("entries", 1000, 100), TableSize("documents", 500, 0)]
    assert apportioned_bytes(sizes, {"entries": 10, "documents": 2}) == 100 + 500
    assert apportioned_bytes(sizes, {}) == 0
