"""The time lift's detectors (engram_memory/timewords.py) and its step in
rank fusion (engram_kit.ranking step 6)."""

from __future__ import annotations

import time

import pytest

from engram_kit.ranking import Channel, FusionWeights, fuse
from engram_memory.timewords import asks_about_time, names_a_time


@pytest.mark.parametrize("question", [
    "When did Caroline go to the LGBTQ support group?",
    "  when is the next deploy window",
    "When?",
    "How long has Melanie been painting?",
    "For how long did they live in Sweden?",
    "What year did Caroline move?",
    "In what month is the reunion?",
    "what date was the launch, again",
    "What time does the bakery open?",
])
def test_a_question_about_time(question: str):
    assert asks_about_time(question)


@pytest.mark.parametrize("question", [
    "What did Melanie paint?",
    "Where does Caroline live?",
    "Whenever it rains, what does Jon do?",  # `when` must be the word
    "Who knows when the office opens?",  # the lab's rule: `when` leads the question
    "How longer queues change latency",
    "What yearly reports are due?",
    "what timeout does the client use",
    "",
])
def test_not_a_question_about_time(question: str):
    assert not asks_about_time(question)


@pytest.mark.parametrize("text", [
    "I went hiking yesterday.",
    "Caroline: We moved here two years ago",
    "last week the pipeline broke",
    "Melanie: The reunion is on 8 May, 2023.",
    "born in 1999",
    "(2024)",
    "See you on Monday!",
    "we are off this weekend",
    "THIS MONTH IS BUSY",
    "recently, the cache has been slow",
    "since then it is fine",
    "TOMORROW",
])
def test_a_text_that_names_a_time(text: str):
    assert names_a_time(text)


@pytest.mark.parametrize("text", [
    "The Mayor spoke at the opening.",  # `may` inside a word
    "lastly, the agony of choice",
    "order 20230 shipped",  # five digits: no year
    "user_2023 logged in",  # an identifier, not a year
    "in 1850 nothing happened",  # outside 19xx and 20xx
    "Sundays are for pottery",  # the lab's word list: the singular only
    "this is the week",  # `this week` must be adjacent
    "I love painting sunsets.",
    "\u212aelvin and \u017finc",  # no Unicode case folding into ASCII words
    "",
])
def test_a_text_that_names_no_time(text: str):
    assert not names_a_time(text)


CRAFTED = [
    "when " * 8_000, " " * 40_000, "how " * 10_000, "what " * 8_000, "this " * 8_000,
    "19" * 20_000, "a" * 40_000, "mon" * 13_333, "_" * 40_000, "this wee" * 5_000,
    "\t" * 39_999 + "x", "2" * 40_000,
]


@pytest.mark.parametrize("text", CRAFTED, ids=lambda t: f"{t[:8]!r}x{len(t)}")
def test_the_detectors_take_linear_time_on_crafted_text(text: str):
    """A backtracking pattern would take seconds to minutes on 40k characters;
    these take milliseconds (a generous bound: the machine may be loaded)."""
    assert len(text) >= 39_999
    started = time.perf_counter()
    names_a_time(text)
    asks_about_time(text)
    names_a_time(text + "!")
    asks_about_time("x" + text)
    assert time.perf_counter() - started < 1.0


def test_the_time_lift_lifts_timed_candidates_of_a_fused_ranking():
    channels = {Channel.DENSE: ["a", "b", "c"], Channel.LEXICAL: ["a", "b"]}
    plain = fuse(channels, FusionWeights(rrf_k=5), {}, {})
    lifted = fuse(channels, FusionWeights(rrf_k=5, time=0.5), {}, {}, timed={"b", "z"})
    assert [f.key for f in plain] == ["a", "b", "c"]
    assert [f.key for f in lifted] == ["b", "a", "c"]  # 1.5 x (1/7 + 1/7) > 1/6 + 1/6
    by = {f.key: f for f in lifted}
    assert by["b"].time_lift == pytest.approx(0.5 * by["b"].rrf)
    assert by["a"].time_lift == by["c"].time_lift == 0.0
    assert all(f.score == pytest.approx(f.rrf + f.time_lift) for f in lifted)
    assert "z" not in by  # a lift never pulls in a row no channel found


def test_a_weight_of_zero_turns_the_time_lift_off():
    channels = {Channel.DENSE: ["a", "b"]}
    off = fuse(channels, FusionWeights(rrf_k=5, time=0.0), {}, {}, timed={"b"})
    assert [f.key for f in off] == ["a", "b"] and all(f.time_lift == 0 for f in off)
