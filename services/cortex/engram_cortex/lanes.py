"""The synchronous conflict pipeline's decisions, as pure functions.

Given a new value and the live facts already in its slot, decide exactly one
outcome: confirm (a restatement or a paraphrase of the same value), or, for a
changed value, one lane in this order: RULE (never auto-resolves), origin
tier (a weaker writer parks as a contender), explicit supersession (the write
says it replaces), otherwise contested.

No lane looks at the cortex host: a value that names a path is text like any
other. Checking it against the host's disk told any tenant which files exist
there, and the host's disk is not the tenant's world anyway."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_kit.vocab import FactAction, Lane, Origin

from .normalise import identifier_like, negated, numbers, value_form, value_tokens

# Keyed by str: rows and inputs carry the origin as text.
TIERS: dict[str, int] = {Origin.USER: 3, Origin.ACTION: 2, Origin.AGENT: 1, Origin.ASSISTANT: 0}
# Wording by which a capture says it replaces an earlier value.
CHANGE_CUES = re.compile(
    r"\b(?:now|no longer|anymore|instead|from now on|going forward|as of today|"
    r"switch\w*|migrat\w*|replac\w*|chang(?:e|ed|es|ing)\b(?! (?:log|set))|"
    r"mov(?:ed|ing)|moves? (?:to|from|over|off)|renam\w*|upgrad\w*|downgrad\w*|"
    r"rais(?:ed|ing)|lower(?:ed|ing)|increas(?:ed|ing)|decreas(?:ed|ing)|bump(?:ed|ing)|"
    r"took over|taken over|taking over|retired|deprecated in favou?r|"
    r"new (?:default|owner|value))\b",
    re.IGNORECASE)


@dataclass(frozen=True)
class Existing:
    id: str
    value: str
    verdict: str
    origin: str


@dataclass(frozen=True)
class Incoming:
    value: str
    kind: str
    origin: str
    quote: str
    replaces: bool
    supersedes: str


@dataclass(frozen=True)
class Decision:
    action: FactAction
    lane: Lane
    related: tuple[str, ...] = ()


def same_value(a: str, b: str, cosine: float | None, threshold: float) -> Lane | None:
    """RESTATEMENT, PARAPHRASE or None (a changed value)."""
    if value_form(a) == value_form(b):
        return Lane.RESTATEMENT
    if numbers(a) != numbers(b) or negated(a) != negated(b):
        return None
    if identifier_like(a) or identifier_like(b):
        return None
    ta, tb = value_tokens(a), value_tokens(b)
    if ta and ta == tb:
        return Lane.PARAPHRASE
    if cosine is not None and cosine >= threshold:
        return Lane.PARAPHRASE
    return None


def says_it_replaces(new: Incoming) -> bool:
    return new.replaces or bool(new.supersedes) or bool(CHANGE_CUES.search(new.quote))


def decide(new: Incoming, live: list[Existing], cosines: dict[str, float],
           threshold: float) -> Decision:
    """`live`: active/contested facts of the same kind in the slot, newest first;
    `cosines`: fact id -> similarity of its value to the new value."""
    if not live:
        return Decision(FactAction.INSERT, Lane.NEW)
    # A write that says it replaces the value is a change, not a rewording:
    # only an exact restatement confirms it.
    replacing = says_it_replaces(new)
    for old in live:
        cosine = None if replacing else cosines.get(old.id)
        same = same_value(new.value, old.value, cosine, threshold)
        if same == Lane.PARAPHRASE and replacing:
            continue
        if same:
            return Decision(FactAction.CONFIRM, same, (old.id,))
    related = tuple(old.id for old in live)
    strongest = max(TIERS.get(old.origin, 1) for old in live)
    if new.kind == "RULE":
        return Decision(FactAction.CONTEST, Lane.RULE, related)
    if TIERS.get(new.origin, 1) < strongest:
        return Decision(FactAction.PARK, Lane.ORIGIN_TIER, related)
    if replacing:
        return Decision(FactAction.SUPERSEDE, Lane.EXPLICIT, related)
    return Decision(FactAction.CONTEST, Lane.CONTESTED, related)
