"""How a write is typed against its neighbours (pure rules, no I/O)."""

from __future__ import annotations

import uuid

import pytest

from engram_memory.findings import Neighbour, classify

OLD = uuid.uuid4()


def typed(new: str, old: str, distance: float = 0.1) -> str:
    result = classify(new, [Neighbour(OLD, old, distance)], subject_distance=0.35,
                      paraphrase_distance=0.08)
    return result.finding


@pytest.mark.parametrize(("new", "old", "finding"), [
    ("Correction: the API rate limit is 250 per second.",
     "The API rate limit is 100 per second.", "update"),
    ("The deploy script actually lives in ops/deploy.sh.",
     "The deploy script lives in scripts/deploy.sh.", "update"),
    ("I am now working as a teacher at the school.",
     "I am working as a nurse at the hospital.", "new"),  # "now" is no correction cue
    ("The backup runs at 04:00 UTC on db-main.", "The backup runs at 02:00 UTC on db-main.",
     "conflict"),
    ("Sensor 4 reported 58 degrees.", "Sensor 3 reported 41 degrees.", "new"),
    ("The staging cluster is not behind the VPN.", "The staging cluster is behind the VPN.",
     "conflict"),
    ("I don't like hiking in the rain at all.", "We went hiking last weekend in the hills.",
     "new"),
])
def test_typing_rules(new: str, old: str, finding: str):
    assert typed(new, old) == finding


def test_far_neighbours_and_paraphrases():
    assert typed("Completely different topic.", "The API rate limit is 100.", 0.9) == "new"
    assert typed("The API rate limit is one hundred per second",
                 "The API rate limit is a hundred per second", 0.03) == "paraphrase"
