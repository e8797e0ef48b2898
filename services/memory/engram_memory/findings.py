"""Typing a new write against its nearest live neighbours.

Similarity alone never retires anything. The rules, in order:
  explicit replacement (the caller names the entry)        -> update
  same normalised text                                     -> restatement
  a near neighbour about the same subject, and the new text
    carries a correction cue ("actually", "now", ...)      -> update
    differs in a number or in negation                     -> conflict
    is a close paraphrase                                  -> paraphrase
  otherwise                                                -> new
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from uuid import UUID

from engram_kit.vocab import Finding

# Explicit correction wording only: everyday words like "now" appear in
# ordinary statements and must not retire anything (measured on LoCoMo, where
# "now" made 65 dialogue turns supersede others).
_CUES = re.compile(
    r"\b(correction|corrected|actually|no longer|not any ?more|instead of|changed (?:to|from)|"
    r"moved to|renamed to|replaced by|update:)", re.I)
_NUMBER = re.compile(r"\b\d+(?:[.:/-]\d+)*\b")
_NEGATION = re.compile(r"\b(not|never|no|don't|doesn't|isn't|aren't|won't|cannot|can't)\b", re.I)
_WORD = re.compile(r"[a-z0-9_./-]+")


@dataclass(frozen=True)
class Neighbour:
    id: UUID
    text: str
    distance: float


@dataclass
class Typed:
    finding: Finding
    related: list[UUID] = field(default_factory=list)
    supersedes: list[UUID] = field(default_factory=list)
    contradicts: list[UUID] = field(default_factory=list)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _overlap(new: str, old: str) -> float:
    a, b = _words(new), _words(old)
    return len(a & b) / max(1, min(len(a), len(b)))


def _one_value_changed(new: str, old: str) -> bool:
    """Same numbers in the same places but one: "port 6543" vs "port 5432".
    Two or more changed numbers ("item 1: 7" vs "item 2: 14") read as two
    different subjects, not one subject with a new value."""
    a, b = _NUMBER.findall(new), _NUMBER.findall(old)
    return len(a) == len(b) > 0 and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _conflicting(new: str, old: str) -> bool:
    """Same subject with incompatible details: one changed value or a flipped
    negation, while most of the wording is shared."""
    overlap = _overlap(new, old)
    if overlap < 0.5:
        return False
    # A flipped negation alone needs near-identical wording ("X is not Y").
    negation_flips = bool(_NEGATION.search(new)) != bool(_NEGATION.search(old)) and \
        overlap >= 0.75
    return _one_value_changed(new, old) or negation_flips


def classify(text: str, neighbours: list[Neighbour], *, subject_distance: float,
             paraphrase_distance: float) -> Typed:
    near = [n for n in neighbours if n.distance <= subject_distance]
    if not near:
        return Typed(Finding.NEW)
    closest = near[0]
    if _CUES.search(text) and _overlap(text, closest.text) >= 0.5:
        return Typed(Finding.UPDATE, supersedes=[closest.id])
    contradicted = [n.id for n in near if _conflicting(text, n.text)]
    if contradicted:
        return Typed(Finding.CONFLICT, contradicts=contradicted)
    similar = [n.id for n in near if n.distance <= paraphrase_distance]
    if similar:
        return Typed(Finding.PARAPHRASE, related=similar)
    return Typed(Finding.NEW, related=[n.id for n in near[:3]])
