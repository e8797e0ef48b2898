"""A fact's kind columns as arguments of `fact_set`: `details` typed column
by column, and the rule that only the owning kind sets a column (the kit's
DETAIL_OWNERS), declared once as an `ArgsRule`: JSON-schema `if`/`then` per
column (the OpenAPI body publishes them; the MCP tool's argument descriptions
say it) and the check that refuses, MCP and REST alike, before any call,
with the cortex's wording."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, with_config
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from engram_kit.fact_kinds import (
    DETAIL_OWNERS,
    DETAIL_TEXT_MAX,
    LIFETIME_MAX_SECONDS,
    owner_problem,
)

from .argtypes import ArgsRule, Rule, plain_arg

# Kind columns that are also arguments of their own.
ARG_COLUMNS = ("reopen_trigger", "earned_by")
NUMBER_COLUMNS = ("expected_lifetime_seconds", "risk_weight")
DEFAULT_KIND = "STATE"

DetailText = Annotated[str, plain_arg(DETAIL_TEXT_MAX, f"Max {DETAIL_TEXT_MAX} chars.")]
Lifetime = Annotated[int, Rule(
    {"minimum": 0, "maximum": LIFETIME_MAX_SECONDS},
    lambda v, f: None if 0 <= v <= LIFETIME_MAX_SECONDS else
    f"{f} must be 0-{LIFETIME_MAX_SECONDS} seconds (100 years)")]
RiskWeight = Annotated[float, Rule({"minimum": 0, "maximum": 1},
                                   lambda v, f: None if 0 <= v <= 1 else f"{f} is 0-1")]


@with_config(ConfigDict(extra="forbid"))
class FactDetails(TypedDict, total=False):
    """The kind columns; each belongs to the kinds DETAIL_OWNERS names."""

    scope: DetailText
    trigger_predicate: DetailText
    status_detail: DetailText
    expected_lifetime_seconds: Lifetime
    earned_by: DetailText
    risk_weight: RiskWeight
    subject: DetailText
    reopen_trigger: DetailText


def _known_details(value: Any) -> Any:
    if isinstance(value, dict):
        unknown = [str(k) for k in value if k not in DETAIL_OWNERS]
        if unknown:
            raise PydanticCustomError("unknown_argument", "{message}", {"message": (
                f"unknown detail {unknown[0][:64]!r}; known: {', '.join(DETAIL_OWNERS)}")})
    return value


Details = Annotated[FactDetails, BeforeValidator(_known_details)]


def _set(column: str) -> dict[str, Any]:
    """The schema of a value that sets `column` (the cortex drops empty ones)."""
    if column in NUMBER_COLUMNS:
        return {"type": "number", "not": {"const": 0}}
    return {"type": "string", "minLength": 1}


def _given(column: str, where: str) -> dict[str, Any]:
    """The schema of arguments that set `column` as an argument or in details."""
    if where == "argument":
        return {"required": [column], "properties": {column: _set(column)}}
    return {"required": ["details"], "properties": {"details": {
        "type": "object", "required": [column], "properties": {column: _set(column)}}}}


def _owned(column: str) -> dict[str, Any]:
    """The schema of arguments whose kind owns `column` (no kind: the default)."""
    owners = list(DETAIL_OWNERS[column])
    return {"properties": {"kind": {"enum": owners}},
            **({} if DEFAULT_KIND in owners else {"required": ["kind"]})}


def _schemas() -> list[dict[str, Any]]:
    out = [{"if": _given(c, "details"), "then": _owned(c)} for c in DETAIL_OWNERS]
    out += [{"if": _given(c, "argument"), "then": _owned(c)} for c in ARG_COLUMNS]
    out += [{"not": {"allOf": [_given(c, "argument"), _given(c, "details")]}}
            for c in ARG_COLUMNS]
    return out


def _check(args: Mapping[str, Any]) -> str | None:
    kind = args.get("kind") or DEFAULT_KIND
    details = args.get("details") or {}
    for column in ARG_COLUMNS:
        if args.get(column) and details.get(column):
            return (f"{column} is given twice (as an argument and in details); give it "
                    "once")
    for column in DETAIL_OWNERS:
        if details.get(column) or (column in ARG_COLUMNS and args.get(column)):
            problem = owner_problem(column, kind)
            if problem:
                return problem
    return None


KIND_COLUMNS = ArgsRule(_schemas(), _check)
