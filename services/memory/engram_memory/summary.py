"""Extractive titles and summaries of an episode from its own entries: the
sentences that share the most words with the rest, in their original order.
No model: what it returns was said by the agent, word for word."""

from __future__ import annotations

import re
from collections import Counter

TITLE_CHARS = 80
SUMMARY_SENTENCES = 4
SUMMARY_CHARS = 600
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9][a-z0-9_'-]+")
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have",
    "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were",
    "will", "with", "we", "i", "you", "he", "she", "they", "not", "no", "do", "does", "did",
    "so", "if", "then"))


def sentences(texts: list[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        out += [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 2]
    return list(dict.fromkeys(out))


def _words(sentence: str) -> list[str]:
    return [w for w in _WORD.findall(sentence.lower()) if w not in _STOP]


def _ranked(candidates: list[str]) -> list[int]:
    """Indexes of the sentences, best first: mean frequency of their words
    over the whole episode (ties: the earlier one)."""
    freq = Counter(w for s in candidates for w in set(_words(s)))

    def score(i: int) -> float:
        words = set(_words(candidates[i]))
        return sum(freq[w] for w in words) / (len(words) + 1) if words else 0.0

    return sorted(range(len(candidates)), key=lambda i: (-score(i), i))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def summarise(texts: list[str]) -> tuple[str, str]:
    """(title, summary) of entries in the order they were written; empty
    strings for no entries."""
    candidates = sentences(texts)
    if not candidates:
        return "", ""
    order = _ranked(candidates)
    title = _clip(candidates[order[0]], TITLE_CHARS)
    chosen, used = [], 0
    for i in order[:SUMMARY_SENTENCES]:
        if chosen and used + len(candidates[i]) > SUMMARY_CHARS:
            break
        chosen.append(i)
        used += len(candidates[i]) + 1
    return title, _clip(" ".join(candidates[i] for i in sorted(chosen)), SUMMARY_CHARS)
