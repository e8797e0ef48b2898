"""Normal forms for slot names and values, so that spelling does not decide
whether two facts are about the same thing or say the same thing."""

from __future__ import annotations

import re

from engram_kit.errors import InvalidArgument

_NAME_UNSAFE = re.compile(r"[^a-z0-9._:/-]+")
_ATTR_UNSAFE = re.compile(r"[^a-z0-9._:/]+")
_QUOTES = re.compile(r"[\"'`\u2018\u2019\u201c\u201d]")
_TRAILING = re.compile(r"(?<=.)[\s.,;:!?/]+$")
_SPACES = re.compile(r"\s+")
_ARTICLES = re.compile(r"^(?:the|a|an)\s+")
_WORD = re.compile(r"[a-z0-9]+(?:[._:/-][a-z0-9]+)*")
_NEGATION = re.compile(r"\b(?:not|never|no|without|none|cannot|can't|don't|doesn't|isn't|"
                       r"aren't|won't|shouldn't|mustn't|disabled?|off)\b")
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "fifteen": "15", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100",
    "once": "1", "twice": "2",
    "single": "1", "double": "2", "half": "0.5",
}
STOPWORDS = frozenset({"the", "a", "an", "of", "for", "to", "in", "on", "at", "with", "by",
                       "and", "is", "are", "be", "every", "each", "per", "as", "its", "it"})


def entity_name(raw: str, field: str = "entity") -> str:
    """Lowercase, spaces to '-', only a-z 0-9 . _ : / - kept."""
    name = _NAME_UNSAFE.sub("-", _SPACES.sub("-", raw.strip().lower())).strip("-")
    if not name:
        raise InvalidArgument(f"{field} is empty after normalisation; give a name "
                              "like 'billing-api'", field=field)
    if len(name) > 200:
        raise InvalidArgument(f"{field} is at most 200 characters", field=field)
    return name


def attribute_name(raw: str) -> str:
    """Lowercase, spaces and dashes to '_'."""
    name = _ATTR_UNSAFE.sub("_", _SPACES.sub("_", raw.strip().lower())).strip("_")
    if not name:
        raise InvalidArgument("attribute is empty after normalisation; give a name "
                              "like 'database'", field="attribute")
    if len(name) > 200:
        raise InvalidArgument("attribute is at most 200 characters", field="attribute")
    return name


def value_form(raw: str) -> str:
    """The value as compared for restatement: case, quotes, surrounding
    punctuation, runs of spaces and a leading article do not count."""
    text = _SPACES.sub(" ", _QUOTES.sub("", raw.strip().lower()))
    return _ARTICLES.sub("", _TRAILING.sub("", text)).strip()


def value_tokens(raw: str) -> frozenset[str]:
    """Content words with number words as digits and plurals folded."""
    out = set()
    words: list[str] = _WORD.findall(raw.lower())
    for word in words:
        word = NUMBER_WORDS.get(word, word)
        if word in STOPWORDS:
            continue
        out.add(stem(word))
    return frozenset(out)


_SUFFIXES = ("ations", "ation", "ings", "ing", "ments", "ment", "edly", "ed", "ies", "es", "ly",
             "s")


def stem(word: str) -> str:
    """A crude stem, enough for 'indentation'/'indent' and 'deploys'/'deploy'."""
    if word.isdigit() or word.endswith("ss"):
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


_MONTHS = {m: str(i) for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_MONTH_NEAR_NUMBER = re.compile(rf"\b{_MONTH}(?=\s+\d)|(?<=\d)(?:st|nd|rd|th)?\s+{_MONTH}\b")
_HUNDREDS = re.compile(r"\b(\w+)[\s-]+hundred\b")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
# Weekdays are discrete values like numbers: Tuesday and Thursday differ.
_WEEKDAYS = {d: i for i, d in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"), 1)}
_WEEKDAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b")


def numbers(raw: str) -> frozenset[str]:
    """Every number the value states (digits, number words, month names next
    to a day or year, weekdays), leading zeros dropped: '2025-05-02' ==
    'May 2, 2025'."""
    text = raw.lower()
    text = _HUNDREDS.sub(lambda m: f"{int(NUMBER_WORDS.get(m.group(1), '1')) * 100}", text)
    text = _MONTH_NEAR_NUMBER.sub(lambda m: f" {_MONTHS[(m.group(1) or m.group(2))[:3]]} ",
                                  text)
    text = re.sub(r"\b[a-z]+\b", lambda m: NUMBER_WORDS.get(m.group(0), m.group(0)), text)
    found = {n.lstrip("0") or "0" for n in _DIGITS.findall(text)}
    return frozenset(found | {f"day{_WEEKDAYS[m[:3]]}" for m in _WEEKDAY.findall(text)})


def identifier_like(raw: str) -> bool:
    """A URL, path, host name, address or version: compared by its text only,
    never by meaning (staging-db-01 and staging-db-02 are different hosts)."""
    value = raw.strip()
    return " " not in value and bool(re.search(r"[/.@:_-]", value))


def negated(raw: str) -> bool:
    return bool(_NEGATION.search(raw.lower()))
