"""Input limits for the memory service. Each violation names the limit."""

from __future__ import annotations

import re
from datetime import datetime

from engram_kit.errors import InvalidArgument
from engram_kit.vocab import EntryOrigin

from .settings import MemorySettings

TAG_RE = re.compile(r"^[a-z0-9][a-z0-9_.:/-]*\Z")
ORIGINS = tuple(EntryOrigin)


def clean_text(text: str, limit: int, field: str) -> str:
    stripped = text.strip()
    if not stripped:
        raise InvalidArgument(f"{field} must not be empty", field=field)
    if len(stripped) > limit:
        raise InvalidArgument(
            f"{field} is {len(stripped)} characters; the limit is {limit}", field=field
        )
    return stripped


def clean_tags(tags: list[str], s: MemorySettings) -> list[str]:
    if len(tags) > s.max_tags:
        raise InvalidArgument(f"at most {s.max_tags} tags per entry (got {len(tags)})",
                              field="tags")
    out: list[str] = []
    for raw in tags:
        tag = raw.strip().lower()
        if not tag or len(tag) > s.max_tag_chars or not TAG_RE.match(tag):
            raise InvalidArgument(
                f"tag {raw[:80]!r} is invalid: use 1-{s.max_tag_chars} chars of a-z, 0-9, "
                "'.', '_', ':', '/', '-'", field="tags",
            )
        if tag not in out:
            out.append(tag)
    return out


def clean_source(source: str, s: MemorySettings) -> str:
    source = source.strip()
    if len(source) > s.max_source_chars:
        raise InvalidArgument(f"source is longer than {s.max_source_chars} characters",
                              field="source")
    return source


def clean_origin(origin: str) -> str:
    origin = (origin or "agent").strip().lower()
    if origin not in ORIGINS:
        raise InvalidArgument(f"origin must be one of {', '.join(ORIGINS)}", field="origin")
    return origin


def clean_top_k(top_k: int, s: MemorySettings) -> int:
    if top_k == 0:
        return s.default_top_k
    if top_k < 0 or top_k > s.max_top_k:
        raise InvalidArgument(f"top_k must be between 1 and {s.max_top_k}", field="top_k")
    return top_k


def check_window(since: datetime | None, until: datetime | None) -> None:
    if since and until and since >= until:
        raise InvalidArgument("since must be earlier than until", field="since")
