"""The one hybrid ranking (engram_kit.ranking): memory's entries and chunks
and the cortex's facts, world facts and lessons fuse with it."""

from __future__ import annotations

import pytest

from engram_kit.ranking import Channel, FusionWeights, fuse, reciprocal_rank_fusion

D, L = Channel.DENSE, Channel.LEXICAL


def test_rrf_sums_the_weighted_reciprocal_ranks_of_each_channel():
    fused = reciprocal_rank_fusion({D: ["a", "b"], L: ["b", "c"]}, k=60, weights={L: 2.0})
    by = {f.key: f for f in fused}
    assert by["a"].score == pytest.approx(1 / 61)
    assert by["b"].score == pytest.approx(1 / 62 + 2 / 61)
    assert by["c"].score == pytest.approx(2 / 62)
    assert [f.key for f in fused] == ["b", "c", "a"]
    assert by["b"].ranks == {D: 2, L: 1} and by["a"].ranks == {D: 1}
    assert all(f.rrf == f.score for f in fused)  # step 1 alone, before any lift


def test_a_row_both_channels_found_outranks_a_row_only_one_found():
    fused = reciprocal_rank_fusion({D: ["x", "both"], L: ["y", "both"]})
    assert fused[0].key == "both"


def test_ties_keep_the_best_rank_then_the_order_channels_were_passed():
    fused = reciprocal_rank_fusion({D: ["a", "b"], L: ["c", "d"]})
    assert [f.key for f in fused] == ["a", "c", "b", "d"]


def test_a_smaller_k_favours_one_channel_s_top_over_agreement_lower_down():
    channels = {D: ["a", "x", "b"], L: ["y", "z", "w", "b"]}
    assert reciprocal_rank_fusion(channels, k=60)[0].key == "b"  # 1/63 + 1/64 > 1/61
    assert reciprocal_rank_fusion(channels, k=1)[0].key == "a"  # 1/2 > 1/4 + 1/5


def test_a_channel_with_no_rows_leaves_the_other_ranking_as_it_was():
    fused = reciprocal_rank_fusion({D: [], L: ["q", "r", "s"]}, k=5)
    assert [f.key for f in fused] == ["q", "r", "s"]


def test_the_lifts_add_to_the_fused_score_and_reorder():
    channels = {D: ["a", "b", "c"], L: ["c"]}
    plain = fuse(channels, FusionWeights(rrf_k=5), {}, {})
    lifted = fuse(channels, FusionWeights(rrf_k=5, context=0.3, episode=0.3,
                                          common_terms=0.5, identifiers=1.0),
                  previous={"b": "a"}, episode_of={"a": "e1", "b": "e1", "c": "e2"},
                  held={"b": 1.0}, exact={"b": 1.0})
    assert [f.key for f in plain] == ["c", "a", "b"]
    assert lifted[0].key == "b"
    for f in lifted:
        assert f.score == pytest.approx(f.rrf + f.context_lift + f.episode_lift + f.term_lift
                                        + f.identifier_lift + f.time_lift)
    by = {f.key: f for f in lifted}
    assert by["a"].context_lift == pytest.approx(0.3 * by["b"].rrf)  # the line that answers it
    assert by["c"].context_lift == 0.0 and by["c"].identifier_lift == 0.0


def test_weights_of_zero_reduce_fuse_to_rank_fusion():
    channels = {D: ["a", "b", "c"], L: ["b", "d"]}
    assert [(f.key, f.score) for f in fuse(channels, FusionWeights(rrf_k=5), {"b": "a"},
                                           {"a": "e"}, {"a": 1.0}, {"a": 1.0}, {"a"})] == \
        [(f.key, f.score) for f in reciprocal_rank_fusion(channels, 5)]


def test_a_lift_never_pulls_in_a_row_no_channel_found():
    fused = fuse({D: ["a"]}, FusionWeights(identifiers=1.0, time=1.0), {"z": "a"}, {"z": "e"},
                 exact={"z": 1.0}, timed={"z"})
    assert [f.key for f in fused] == ["a"]


def test_channels_travel_as_their_plain_words():
    assert [str(c) for c in Channel] == ["dense", "lexical"]
