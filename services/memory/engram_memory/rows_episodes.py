"""The typed rows memory's episode and session repositories return
(repo_episodes.py, repo_sessions.py), built once in the repository;
callers read attributes.

Every column of `episodes` is a field of one of `EPISODE_ROWS` or is named
in `UNREAD_EPISODE_COLUMNS` (tests/unit/test_rows.py checks the migration
files)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from engram_kit import rows
from engram_kit.rows import Row, columns_read

# Columns of `episodes` no row type carries, and why.
UNREAD_EPISODE_COLUMNS = frozenset({
    "last_active_at",  # the idle close compares it in SQL, never returns it
})


@dataclass(frozen=True, slots=True)
class EpisodeHead(Row):
    """An episode as the episode RPCs return it (innermost_open, create)."""
    id: UUID
    parent_id: UUID | None
    title: str
    started_at: datetime


@dataclass(frozen=True, slots=True)
class SessionEpisode(Row):
    """A session's episode with its stored summary (repo_sessions)."""
    id: UUID
    parent_id: UUID | None
    title: str
    summary: str
    session_id: str
    started_at: datetime
    ended_at: datetime | None
    auto_title: bool


@dataclass(frozen=True, slots=True)
class IdleRoot(Row):
    """An idle session root, listed across namespaces (the sweep's duty)."""
    namespace: str
    id: UUID


# recent_with_entries: the episode's live entry count and its newest live
# texts ($2 of them), newest first.
RECAP_EXPRESSIONS = {
    "entries": "(SELECT count(*) FROM live_entries e WHERE e.episode = ep.id::text) AS entries",
    "latest": "ARRAY(SELECT e.text FROM live_entries e WHERE e.episode = ep.id::text"
              " ORDER BY e.created_at DESC LIMIT $2) AS latest",
}


@dataclass(frozen=True, slots=True)
class EpisodeRecap(Row):
    """A recent episode for the briefing (`RECAP_EXPRESSIONS`)."""
    id: UUID
    title: str
    parent_id: UUID | None
    started_at: datetime
    ended_at: datetime | None
    started_by: str
    entries: int
    latest: list[str]


@dataclass(frozen=True, slots=True)
class TextRow(Row):
    """A row's id and text (an episode's tail; what a vector is made of)."""
    id: UUID
    text: str


EPISODE_ROWS: tuple[type, ...] = (EpisodeHead, SessionEpisode, IdleRoot, EpisodeRecap)


def episode_fields() -> frozenset[str]:
    """The columns of `episodes` the row types read (expressions left out)."""
    return columns_read(*EPISODE_ROWS, expressions=RECAP_EXPRESSIONS)


def recap_select() -> str:
    return rows.select_list(EpisodeRecap, RECAP_EXPRESSIONS)
