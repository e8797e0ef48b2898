"""A store's finding is declared once (engram_kit.vocab.Finding): every
proto value maps to a word and back, and memory's typing returns the enum."""

from __future__ import annotations

import uuid

from engram.v1 import memory_pb2
from engram_kit.vocab import Finding
from engram_memory.findings import Neighbour, classify


def test_every_wire_finding_has_a_word_and_back():
    named = [v for v in memory_pb2.Finding.values() if v != memory_pb2.FINDING_UNSPECIFIED]
    assert sorted(Finding.from_wire(v).wire() for v in named) == sorted(named)
    assert {Finding.from_wire(v) for v in named} == set(Finding)


def test_an_unspecified_finding_reads_as_new():
    assert Finding.from_wire(memory_pb2.FINDING_UNSPECIFIED) is Finding.NEW


def test_the_word_is_the_wire_word_of_events_and_replies():
    assert [str(f) for f in Finding] == ["new", "restatement", "paraphrase", "update", "conflict"]


def test_classify_returns_the_enum():
    old = Neighbour(uuid.uuid4(), "the staging db listens on port 5432", 0.05)
    typed = classify("actually the staging db listens on port 6543", [old],
                     subject_distance=0.3, paraphrase_distance=0.1)
    assert typed.finding is Finding.UPDATE
    assert classify("something else", [], subject_distance=0.3,
                    paraphrase_distance=0.1).finding is Finding.NEW
