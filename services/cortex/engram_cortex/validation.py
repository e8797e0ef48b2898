"""Validation of fact input: kinds, origins, evidence, per-kind columns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram_kit.errors import InvalidArgument
from engram_kit.fact_kinds import DETAIL_TEXT_MAX, KINDS, LIFETIME_MAX_SECONDS, owner_problem
from engram_kit.vocab import Origin

from .settings import CortexSettings

ORIGINS = tuple(Origin)
SOURCE_TYPES = ("utterance", "capture", "file", "commit", "url", "memory_entry", "")


@dataclass(frozen=True)
class EvidenceIn:
    quote: str = ""
    source_type: str = ""
    source_ref: str = ""
    captured_by: str = ""


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise InvalidArgument(f"kind must be one of {', '.join(KINDS)}; got {kind!r}",
                              field="kind")
    return kind


def check_origin(origin: str) -> str:
    origin = origin or Origin.AGENT
    if origin not in ORIGINS:
        raise InvalidArgument(f"origin must be one of {', '.join(ORIGINS)}", field="origin")
    return origin


def check_value(value: str, s: CortexSettings, field: str = "value") -> str:
    value = value.strip()
    if not value:
        raise InvalidArgument(f"{field} is empty", field=field)
    if len(value) > s.value_max_chars:
        raise InvalidArgument(f"{field} is {len(value)} characters; the limit is "
                              f"{s.value_max_chars}", field=field)
    return value


def check_evidence(e: EvidenceIn, s: CortexSettings) -> EvidenceIn:
    if e.source_type not in SOURCE_TYPES:
        raise InvalidArgument("evidence source_type must be one of "
                              f"{', '.join(t for t in SOURCE_TYPES if t)}", field="source_type")
    if len(e.quote) > s.quote_max_chars:
        raise InvalidArgument(f"evidence quote is at most {s.quote_max_chars} characters",
                              field="quote")
    if len(e.source_ref) > s.source_ref_max_chars or len(e.captured_by) > 200:
        raise InvalidArgument(f"source_ref is at most {s.source_ref_max_chars} characters and "
                              "captured_by at most 200", field="source_ref")
    return e


def check_details(kind: str, details: dict[str, Any]) -> dict[str, Any]:
    """Only the owning kind may set a column; empty values are dropped."""
    out = {k: v for k, v in details.items() if v not in (None, "", 0, 0.0)}
    for name in out:
        problem = owner_problem(name, kind)
        if problem:
            raise InvalidArgument(problem, field=name)
    for name, value in out.items():
        if isinstance(value, str) and len(value) > DETAIL_TEXT_MAX:
            raise InvalidArgument(f"{name} is at most {DETAIL_TEXT_MAX} characters",
                                  field=name)
    if not 0 <= out.get("expected_lifetime_seconds", 0) <= LIFETIME_MAX_SECONDS:
        raise InvalidArgument("expected_lifetime_seconds must be positive and at most "
                              f"{LIFETIME_MAX_SECONDS} (100 years)",
                              field="expected_lifetime_seconds")
    if "risk_weight" in out and not 0 <= out["risk_weight"] <= 1:
        raise InvalidArgument("risk_weight is 0-1", field="risk_weight")
    return out


def check_confidence(confidence: float) -> float:
    confidence = confidence or 1.0
    if not 0 < confidence <= 1:
        raise InvalidArgument("confidence is in (0, 1]", field="confidence")
    return confidence
