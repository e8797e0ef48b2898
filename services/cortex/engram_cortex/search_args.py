"""Checks of search and briefing arguments shared by facts, world facts and
lessons (the search itself is repo_search.ranked)."""

from __future__ import annotations

from engram_kit.errors import InvalidArgument

from .settings import CortexSettings


def check_query(query: str, top_k: int, s: CortexSettings) -> tuple[str, int]:
    query = query.strip()
    if not query or len(query) > 2000:
        raise InvalidArgument("query is 1-2000 characters", field="query")
    top_k = top_k or 5
    if not 1 <= top_k <= s.search_top_k_max:
        raise InvalidArgument(f"top_k is 1-{s.search_top_k_max}", field="top_k")
    return query, top_k


BRIEFING_MAX = 50


def briefing_limit(value: int, default: int, field: str) -> int:
    """A briefing section's size: 0 means `default`, at most BRIEFING_MAX."""
    if not 0 <= value <= BRIEFING_MAX:
        raise InvalidArgument(f"{field} is 0-{BRIEFING_MAX} (0: {default})", field=field)
    return value or default
