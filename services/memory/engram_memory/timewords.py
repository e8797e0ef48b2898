"""Time in questions and in texts: the detectors of the time lift (engram_kit.ranking step 6).

A question about time ("when", "how long", "what year") is answered by a
line that names one (yesterday, last week, May, 2022, ...), and rank fusion
alone often prefers a line about the same thing that names none. Measured
on LoCoMo by `evals/ablate/locomo_graph.py`, which imports this module:
these patterns are written once, here.

`TEXT_PATTERN` is also what the service hands Postgres (`text ~* $1`,
repo_candidates.py), so it uses only syntax that Python's `re` and Postgres'
regular expressions read alike: no `\\b` (a backspace to Postgres), so a
word edge is a character outside `[A-Za-z0-9_]` or an end of the text, and
`[0-9]` rather than `\\d` (any Unicode digit to Python). Both patterns are
literal alternations with no nested repetition, so a match costs time
linear in the text (tests/unit/test_timewords.py times a 40k-character
crafted text)."""

from __future__ import annotations

import re

_WORDS = (
    r"yesterday|today|tonight|tomorrow|ago|last|next|this (?:week|month|year|weekend)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend|january|february|march|april|"
    r"may|june|july|august|september|october|november|december|(?:19|20)[0-9][0-9]|"
    r"since|recently")
TEXT_PATTERN = rf"(?:^|[^A-Za-z0-9_])(?:{_WORDS})(?:[^A-Za-z0-9_]|$)"
QUESTION_PATTERN = (r"^\s*when(?:[^A-Za-z0-9_]|$)|(?:^|[^A-Za-z0-9_])how long(?:[^A-Za-z0-9_]|$)"
                    r"|(?:^|[^A-Za-z0-9_])what (?:year|month|day|date|time)(?:[^A-Za-z0-9_]|$)")
# ASCII: a case-insensitive Python match must not fold the Kelvin sign into
# `k` or the long s into `s` where Postgres does not.
_TEXT = re.compile(TEXT_PATTERN, re.IGNORECASE | re.ASCII)
_QUESTION = re.compile(QUESTION_PATTERN, re.IGNORECASE | re.ASCII)


def asks_about_time(question: str) -> bool:
    """The question asks when, how long, or what year/month/day/date/time."""
    return _QUESTION.search(question) is not None


def names_a_time(text: str) -> bool:
    """The text names a day, a month, a year or a relative time."""
    return _TEXT.search(text) is not None
