"""Words that travel between the gateway and the services are declared once,
in the kit: a store's finding (every proto value maps to a word and back,
memory's typing returns the enum), fact kinds and origins, entry origins."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import TypeAdapter

from engram.v1 import memory_pb2
from engram_gateway.tools import argtypes
from engram_gateway.tools import facts as facts_tool
from engram_kit.fact_kinds import KINDS
from engram_kit.vocab import EntryOrigin, Finding, Origin
from engram_memory import validation as memory_validation
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


def _enum(annotated: Any) -> list[str]:
    return TypeAdapter(annotated).json_schema()["enum"]


def test_the_gateway_publishes_the_kits_words():
    assert _enum(facts_tool.Kind) == list(KINDS)
    assert _enum(facts_tool.FactOrigin) == list(Origin)
    assert _enum(argtypes.Origin) == list(EntryOrigin)


def test_memory_checks_the_kits_entry_origins():
    assert tuple(EntryOrigin) == memory_validation.ORIGINS
    assert set(Origin) < set(EntryOrigin), "a fact's origin is an entry's origin too"
