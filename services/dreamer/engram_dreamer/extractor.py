"""Extractor backends behind one small interface: `rules` (no model) and
`openai` (any OpenAI-compatible chat endpoint). `none` is a plain refusal."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from engram_kit.errors import Unavailable

KINDS = ("DECISION", "RULE", "STATE", "PREFERENCE", "REFERENCE", "RESIDUAL", "EVENT")


@dataclass(frozen=True)
class EntryText:
    id: str
    text: str


@dataclass(frozen=True)
class Candidate:
    entry_id: str
    kind: str
    entity: str
    attribute: str
    value: str
    quote: str
    valid_from: str | None


class Extractor(Protocol):
    name: str
    model: str

    async def extract(self, entries: list[EntryText]) -> list[Candidate]: ...


class ExtractionFailed(Exception):
    """A batch the backend could not turn into candidates (after retries)."""


class ExtractorUnavailable(Unavailable):
    """The backend itself could not be reached or was overloaded (after
    retries): no entry is to blame, so the pass stops and every entry stays
    pending instead of being quarantined."""


def anchored(quote: str, text: str) -> bool:
    """Anchor hygiene: the quote appears verbatim in its entry, whitespace
    normalised. A fact whose evidence is not in the source is never written."""
    def squash(s: str) -> str:
        return re.sub(r"\s+", " ", s).strip()

    q = squash(quote)
    return bool(q) and q in squash(text)
