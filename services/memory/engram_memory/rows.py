"""The typed rows memory's repositories return: each is built once, in the
repository, from the record its SELECT returned; callers read attributes.

A row's fields are its SELECT list (`select_list`): one declaration per
projection, so a column is added in one place. `tests/unit/test_rows.py`
and `tests/integration/test_live_views.py` check the fields against the
`entries` table: each of its columns is a field or is named in
`UNREAD_ENTRY_COLUMNS`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from engram_kit import rows
from engram_kit.rows import Row

# Fields that are expressions, not columns: what each selects.
EXPRESSIONS = {"embedded": "(embedding IS NOT NULL) AS embedded"}

# Columns of `entries` no row type carries, and why. A new column is a
# field of a row (what a read returns) or named here.
UNREAD_ENTRY_COLUMNS = frozenset({
    "namespace",         # RLS scopes every read to one
    "text_hash",         # matched in SQL (find_live_by_hash), never returned
    "embedding",         # vectors are read only where needed (newest_embedded_live)
    "context_embedding", "context_of", "context_of_prior",  # the context-vector sweep's
    "tsv",               # the lexical channel's, in SQL
    "meta",
    "last_used_at", "archived_by", "rescued_at", "rescued_by", "rescue_reason",  # decay's
})


def select_list(row_type: type) -> str:
    """The SELECT (or RETURNING) list of a memory row type."""
    return rows.select_list(row_type, EXPRESSIONS)


@dataclass(frozen=True, slots=True)
class EntryRow(Row):
    """An entry as reads return it (`ENTRY_COLUMNS` in repo.py)."""
    id: UUID
    text: str
    source: str
    tags: list[str]
    origin: str
    episode: str | None
    status: str
    created_at: datetime
    valid_from: datetime
    writer_principal: str
    embedded: bool  # (embedding IS NOT NULL): the vector itself is not read


@dataclass(frozen=True, slots=True)
class ServedEntryRow(EntryRow):
    """An entry a ranked read serves, maybe from history: what labels it."""
    superseded_by: UUID | None
    retired_at: datetime | None


@dataclass(frozen=True, slots=True)
class FullEntryRow(ServedEntryRow):
    """One entry with its lifecycle (memory_get, and the write path's checks)."""
    confirmations: int
    supersedes: UUID | None
    last_reinforced_at: datetime | None
    client_id: str
    session_id: str


def entry_fields(row_type: type = FullEntryRow) -> frozenset[str]:
    """The columns of `entries` a row type reads (its fields less expressions)."""
    return rows.columns_read(row_type, expressions=EXPRESSIONS)


# --- projections: what a read returns that is not an entry ----------------
# Built by keyword like the entries; each SELECT list is `select_list` of
# its row.


@dataclass(frozen=True, slots=True)
class EntryState(Row):
    """An entry locked by a write that needs it live."""
    id: UUID
    status: str
    superseded_by: UUID | None


@dataclass(frozen=True, slots=True)
class ForgetRow(Row):
    """What forgetting an entry reads of it: its tombstone's digest, its episode."""
    id: UUID
    text: str
    episode: str | None


@dataclass(frozen=True, slots=True)
class RetiredMatch(Row):
    """A superseded or archived row the lexical channel matched (explain)."""
    id: UUID
    text: str
    status: str
    superseded_by: UUID | None


@dataclass(frozen=True, slots=True)
class VersionRow(Row):
    version: int
    text: str
    changed_by: str
    reason: str
    status: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class LinkRow(Row):
    src: UUID
    dst: UUID
    kind: str


@dataclass(frozen=True, slots=True)
class TombstoneRow(Row):
    id: UUID
    reason: str
    forgotten_at: datetime
    forgotten_by: str


@dataclass(frozen=True, slots=True)
class RescueRow(Row):
    """What rescuing an entry returns (`repo_decay.rescue`, RETURNING): its
    status before the rescue and the rescue's stamp."""
    was: str
    rescued_at: datetime
