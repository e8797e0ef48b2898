"""Argument types shared by the tool stubs and the hand-written REST
models: each constraint a service enforces on an argument, declared once as
a `Rule` that both puts it into the JSON schema (so the MCP input schema and
the OpenAPI document carry it) and checks it with a message naming the
field, as the service would word it. Patterns are JSON-schema patterns (an
unanchored search): no Python-only syntax. The services check again."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    model_validator,
)
from pydantic_core import PydanticCustomError, core_schema

from engram_kit import board_limits as board
from engram_kit.vocab import EntryOrigin

from ..shaping.common import parse_time

UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
UUID_OR_EMPTY = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$"
# Text the services trim and refuse when blank, and refuse with a NUL in it.
NON_BLANK = r"^[^\x00]*[^\x00\s][^\x00]*$"
NO_NUL = r"^[^\x00]*$"
# A name the cortex normalises (entity, attribute): one character it keeps
# must be there. An entity keeps a-z 0-9 . _ : / (dashes are trimmed from its
# ends); an attribute a-z 0-9 . : / ('-' and '_' are trimmed from its ends).
ENTITY_KEEPS = "A-Za-z0-9._:/"
ATTRIBUTE_KEEPS = "A-Za-z0-9.:/"
TAG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:/-]*$"
# A retry key travels as gRPC metadata: printable ASCII (empty: none).
REQUEST_ID_PATTERN = r"^[ -~]*$"

Check = Callable[[Any, str], str | None]  # (value, field) -> what is wrong, or None


class Rule:
    """Annotated metadata: JSON-schema `keywords` for the value, and `check`
    that enforces them (the message it returns is the validation error)."""

    def __init__(self, keywords: Mapping[str, Any], check: Check) -> None:
        self.keywords = dict(keywords)
        self.check = check

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.with_info_after_validator_function(self._validate, handler(source))

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return handler(schema) | self.keywords

    def _validate(self, value: Any, info: core_schema.ValidationInfo) -> Any:
        problem = self.check(value, info.field_name or "value")
        if problem:
            raise PydanticCustomError("invalid_argument", "{message}", {"message": problem})
        return value


ArgsCheck = Callable[[Mapping[str, Any]], str | None]  # arguments -> what is wrong, or None
M = TypeVar("M", bound=BaseModel)


class ArgsRule:
    """A rule across a tool's arguments (one field only with another's
    value): JSON-schema `schemas` the argument object must all match (a
    REST body publishes them as `allOf`; an MCP input schema cannot, see
    strict_args), and `check` that enforces them on the validated arguments,
    MCP and REST alike."""

    def __init__(self, schemas: Sequence[Mapping[str, Any]], check: ArgsCheck) -> None:
        self.schemas = [dict(s) for s in schemas]
        self.check = check


def with_rules(model: type[M], rules: Sequence[ArgsRule], publish: bool = True) -> type[M]:
    """`model` checking `rules` after its fields; `publish`: with their
    schemas in its JSON schema too (as a root `allOf`)."""
    if not rules:
        return model

    def extra(schema: dict[str, Any], cls: type[Any]) -> None:
        if publish:
            schema["allOf"] = [*schema.get("allOf", []),
                               *(s for r in rules for s in r.schemas)]

    def rules_hold(self: BaseModel) -> BaseModel:
        args = {n: getattr(self, n) for n in type(self).model_fields}
        for rule in rules:
            problem = rule.check(args)
            if problem:
                raise PydanticCustomError("invalid_argument", "{message}", {"message": problem})
        return self

    namespace = {"__module__": model.__module__,
                 "model_config": ConfigDict(json_schema_extra=extra),
                 "rules_hold": model_validator(mode="after")(rules_hold)}
    return cast(type[M], type(model.__name__, (model,), namespace))


def _shown(value: str) -> str:
    return repr(value[:40])


def _text_check(max_chars: int, blank_ok: bool) -> Check:
    def check(value: str, field: str) -> str | None:
        if "\x00" in value:
            return f"{field} contains a NUL character"
        if not blank_ok and not value.strip():
            return f"{field} must not be empty ({field} is 1-{max_chars} characters)"
        size = len(value.strip())  # the services trim before they count
        if size > max_chars:
            return f"{field} is {size} characters; the limit is {max_chars}"
        return None
    return check


def text_arg(max_chars: int, description: str) -> Rule:
    """Required text: 1-`max_chars` characters, not blank, no NUL."""
    return Rule({"minLength": 1, "maxLength": max_chars, "pattern": NON_BLANK,
                 "description": description}, _text_check(max_chars, blank_ok=False))


def plain_arg(max_chars: int, description: str) -> Rule:
    """Optional text (empty allowed): at most `max_chars`, no NUL."""
    return Rule({"maxLength": max_chars, "pattern": NO_NUL, "description": description},
                _text_check(max_chars, blank_ok=True))


def name_arg(description: str, keeps: str = ENTITY_KEEPS, like: str = "billing-api") -> Rule:
    """An entity or attribute name (at most 200 characters once normalised):
    `keeps` is the character class that survives the normalisation."""
    def check(value: str, field: str) -> str | None:
        if "\x00" in value:
            return f"{field} contains a NUL character"
        if not re.search(f"[{keeps}]", value):
            return f"{field} is empty after normalisation; give a name like {like!r}"
        if len(value) > 200:
            return f"{field} is at most 200 characters"
        return None
    return Rule({"minLength": 1, "maxLength": 200, "pattern": rf"^[^\x00]*[{keeps}][^\x00]*$",
                 "description": description}, check)


def one_of(*values: str) -> Rule:
    """A closed vocabulary (the JSON schema's enum)."""
    def check(value: str, field: str) -> str | None:
        if value in values:
            return None
        return f"{field} must be one of {', '.join(v for v in values if v)}"
    return Rule({"enum": list(values)}, check)


def _uuid_check(empty_ok: bool, noun: str = "", subject: str = "") -> Check:
    """`noun`: the id is an item of a list of ids; `subject`: what a field
    named plainly `id` identifies (an entry), so the message can say so."""
    def check(value: str, field: str) -> str | None:
        if (empty_ok and not value) or re.fullmatch(UUID_PATTERN[1:-1], value):
            return None
        if noun:  # an item of a list of ids
            return f"{_shown(value)} is not a {noun} id (a UUID)"
        noun_ = subject or field.removesuffix("_ids").removesuffix("_id").replace("_", " ")
        what = f"{_shown(value)} is not" if field.endswith("_ids") else f"{field} must be"
        kind = f"an {noun_}" if noun_[:1] in "aeiou" else f"a {noun_}"
        return f"{what} {kind} id (a UUID)" if noun_ != field else f"{what} an id (a UUID)"
    return check


def uuid_arg(description: str, subject: str = "") -> Rule:
    """An id argument: a UUID, as every service parses ids."""
    return Rule({"pattern": UUID_PATTERN, "maxLength": 36, "description": description},
                _uuid_check(empty_ok=False, subject=subject))


def _iso(value: str, info: core_schema.ValidationInfo) -> str:
    try:
        parse_time(value, info.field_name or "time")  # the parse the operation applies
    except Exception as exc:  # a ToolError: as a validation error naming the field
        raise PydanticCustomError("invalid_argument", "{message}",
                                  {"message": str(exc)}) from None
    return value


class _IsoTime:
    """An ISO-8601 time, refused before any call when it does not parse."""

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.with_info_after_validator_function(_iso, handler(source))

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return handler(schema) | {"format": "date-time"}


def _tag_check(value: str, field: str) -> str | None:
    if 1 <= len(value) <= 64 and re.fullmatch(TAG_PATTERN[1:-1], value):
        return None
    return (f"tag {value[:80]!r} is invalid: use 1-64 chars of a-z, 0-9, '.', '_', ':', "
            "'/', '-'")


def _list_check(most: int, noun: str, least: int = 0) -> Check:
    def check(value: list[Any], field: str) -> str | None:
        if len(value) > most:
            return f"at most {most} {noun} (got {len(value)})"
        if len(value) < least:
            return f"{field} needs at least {least} {noun}"
        return None
    return check


def _request_id_check(value: str, field: str) -> str | None:
    if len(value) <= 128 and re.fullmatch(r"[ -~]*", value):
        return None
    return f"{field} is 1-128 printable ASCII characters"


IsoTime = Annotated[str, _IsoTime()]
Tag = Annotated[str, Rule({"minLength": 1, "maxLength": 64, "pattern": TAG_PATTERN},
                          _tag_check)]
Tags = Annotated[list[Tag], Rule({"maxItems": 20}, _list_check(20, "tags per entry"))]
Origin = Annotated[str, one_of(*EntryOrigin)]
RequestIdText = Annotated[str, Rule({"maxLength": 128, "pattern": REQUEST_ID_PATTERN},
                                    _request_id_check)]
Reason = Annotated[str, text_arg(500, "Why (1-500 chars; kept in the audit).")]
Uuid = Annotated[str, Rule({"pattern": UUID_PATTERN, "maxLength": 36},
                           _uuid_check(empty_ok=False))]
OptionalUuid = Annotated[str, Rule({"pattern": UUID_OR_EMPTY, "maxLength": 36},
                                   _uuid_check(empty_ok=True))]
# Bounded so a search filter on it fits in a REST query string (12 bytes a
# character at worst, percent-encoded), within the gateway's request head limit.
Episode = Annotated[str, plain_arg(1000, "Episode/session label (max 1000 chars).")]
MemoryText = Annotated[str, text_arg(16000, "The memory, in plain words (max 16000 chars).")]
QueryText = Annotated[str, text_arg(2000, "What to find, in natural words (1-2000 chars).")]
Source = Annotated[str, plain_arg(200, "Where it came from (file, url, chat); max 200.")]
Note = Annotated[str, plain_arg(500, "Why (optional, max 500 chars).")]
EntryId = Annotated[str, uuid_arg("The entry's id (from store/search replies).", "entry")]
OptionalTags = Annotated[Tags | None, Field(description="Lowercase dotted tags (max 20).")]
OptionalTime = Annotated[IsoTime | None, Field(description="An ISO-8601 date or time.")]
# A relation name (the vocabulary holds the known ones, per namespace).
RELATION_PATTERN = r"^\s*[A-Za-z0-9_ -]*[A-Za-z0-9][A-Za-z0-9_ -]*\s*$"
EntityName = Annotated[str, name_arg("What it is about, e.g. 'billing-api' (max 200).")]
AttributeName = Annotated[str, name_arg("Which property, e.g. 'database' (max 200).",
                                        ATTRIBUTE_KEEPS, "database")]
# Each dotted segment starts with a letter or digit, as the cortex reads tags.
FACT_TAG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9][A-Za-z0-9_-]*)*$"
FactTag = Annotated[str, Rule(
    {"maxLength": 100, "pattern": FACT_TAG_PATTERN},
    lambda v, f: None if len(v) <= 100 and re.fullmatch(FACT_TAG_PATTERN[1:-1], v) else
    f"malformed tag {v[:60]!r}: dotted segments of a-z, 0-9, '_', '-', each starting with "
    "a letter or digit (at most 100 characters)")]
FactTags = Annotated[list[FactTag], Rule({"maxItems": 20}, _list_check(20, "tags per fact"))]
SourceType = Annotated[str, one_of("", "utterance", "capture", "file", "commit", "url",
                                   "memory_entry")]
BoardText = Annotated[str, plain_arg(board.FIELD_MAX_CHARS,
                                     f"Up to {board.FIELD_MAX_CHARS} chars.")]
ChildLabel = Annotated[str, text_arg(board.CHILD_LABEL_MAX_CHARS,
                                     f"A subagent label (1-{board.CHILD_LABEL_MAX_CHARS} chars).")]
Children = Annotated[list[ChildLabel], Rule({"maxItems": board.CHILDREN_MAX, "uniqueItems": True},
                                            _list_check(board.CHILDREN_MAX, "children"))]
PARK_REASONS = ("done", "blocked", "needs_approval", "needs_info", "needs_resource",
                "waiting_peer")
ParkReason = Annotated[str, Rule({"enum": list(PARK_REASONS)}, lambda v, f: None
                                 if v in PARK_REASONS else "park reason must be one of "
                                 + ", ".join(PARK_REASONS))]
OptionalParkReason = Annotated[str, Rule({"enum": ["", *PARK_REASONS]}, lambda v, f: None
                                         if v in ("", *PARK_REASONS) else
                                         "park reason must be one of "
                                         + ", ".join(PARK_REASONS))]
ParkNote = Annotated[str, plain_arg(board.PARK_NOTE_MAX_CHARS,
                                    f"At most {board.PARK_NOTE_MAX_CHARS} chars.")]
ParkResume = Annotated[str, plain_arg(board.PARK_RESUME_MAX_CHARS,
                                      f"At most {board.PARK_RESUME_MAX_CHARS} chars.")]
PARK_MAX_S = board.PARK_MAX_S
ParkExpiry = Annotated[int, Rule({"minimum": 0, "maximum": PARK_MAX_S}, lambda v, f: None if
                                 0 <= v <= PARK_MAX_S else
                                 f"a park expires within {PARK_MAX_S} s; 0: 12 h")]
def _mail_check(value: str, field: str) -> str | None:
    size = len(value.encode())
    if size > MAIL_BYTES:  # the board's limit is in bytes
        return f"{field} is {size} bytes; the limit is {MAIL_BYTES}"
    return _text_check(MAIL_BYTES, blank_ok=False)(value, field)


MAIL_BYTES = board.MESSAGE_MAX_BYTES
MailText = Annotated[str, Rule({"minLength": 1, "maxLength": MAIL_BYTES, "pattern": NON_BLANK,
                                "description": f"The message (max {MAIL_BYTES} bytes; "
                                               "no secrets)."},
                               _mail_check)]
MessageId = Annotated[str, Rule({"pattern": UUID_PATTERN, "maxLength": 36},
                                _uuid_check(empty_ok=False, noun="message"))]
MailIds = Annotated[list[MessageId], Rule({"minItems": 1, "maxItems": board.ACK_MAX_IDS},
                                     _list_check(board.ACK_MAX_IDS, "ids per call", least=1))]
# session_changes' cursor: an ISO time with its offset, as a reply gave it (empty: start).
OFFSET_TIME_PATTERN = r"^([0-9].*([Zz]|[+-][0-9]{2}:?[0-9]{2}))?$"
ChangesCursor = Annotated[str, Rule(
    {"maxLength": 64, "pattern": OFFSET_TIME_PATTERN, "format": "date-time"},
    lambda v, f: None if len(v) <= 64 and re.fullmatch(OFFSET_TIME_PATTERN[1:-1], v) else
    f"{f} must be a cursor from an earlier session_changes reply (an ISO 8601 time with "
    "its offset)")]
Title = Annotated[str, plain_arg(200, "A title (max 200 chars).")]
Similarity = Annotated[float, Rule(
    {"anyOf": [{"const": 0}, {"minimum": 0.5, "maximum": 1}]},
    lambda v, f: None if v == 0 or 0.5 <= v <= 1 else
    f"{f} must be between 0.5 and 1.0 (got {v:g}); 0: the default")]
# Consolidation clusters: the default ENGRAM_CONSOLIDATION_MAX_CLUSTERS.
ClusterLimit = Annotated[int, Rule({"minimum": 0, "maximum": 20}, lambda v, f: None if
                                   0 <= v <= 20 else f"{f} must be 1-20 (got {v}); 0: 20")]
EntryIds = Annotated[list[Uuid], Rule({"minItems": 2, "maxItems": 20}, lambda v, f: None if
                                      2 <= len(v) <= 20 else
                                      f"{f} must name 2-20 entries (got {len(v)})")]
PrincipalName = Annotated[str, text_arg(200, "The writer (principal name) whose writes go.")]
Reasoning = Annotated[str, text_arg(2000, "Why (1-2000 chars).")]
DocumentFormat = Annotated[str, one_of("text", "markdown", "html", "pdf")]
