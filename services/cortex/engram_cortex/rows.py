"""The typed rows the cortex's repositories return (facts, world facts,
lessons, slots, conflicts, edges, tags, relations and the smaller
projections): each is built once, in the repository, from the record its SELECT
returned; callers read attributes, never column names.

A row's fields are its SELECT (or RETURNING) list (`select_list`): one
declaration, so a column is added in one place, and no read is a `SELECT *`
that changes under it when a column is added. `tests/unit/test_cortex_rows.py`
and `tests/integration/test_live_views.py` check the fields against the
`facts` table: each of its columns is a field of `FactRow` or is named in
`UNREAD_FACT_COLUMNS` (and so for the other tables with a row type)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from engram_kit import rows
from engram_kit.rows import Row

# Columns of `facts` no row type carries, and why. A new column is a field
# of `FactRow` (what a read returns) or named here.
UNREAD_FACT_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one (the caller passes it where written)
    "embedding",        # compared in SQL only (search's dense channel)
    "meta",             # confirmations: counted in SQL (repo.confirm), never served
    "writer_client", "writer_session",  # matched in SQL (session_changes), never served
})


@dataclass(frozen=True, slots=True)
class FactRow(Row):
    """A fact as every full read returns it (`repo.FACT_COLUMNS`)."""
    id: UUID
    entity: str
    attribute: str
    value: str
    norm_value: str
    kind: str
    verdict: str
    origin: str
    confidence: float
    evidence_quote: str
    source_type: str
    source_ref: str
    captured_by: str
    writer_principal: str
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    retired_at: datetime | None
    retire_reason: str
    supersedes: UUID | None
    superseded_by: UUID | None
    set_member: bool
    tags: list[str]
    last_verified_at: datetime | None
    # the kind's own columns (validation.check_details)
    scope: str | None
    trigger_predicate: str | None
    status_detail: str | None
    expected_lifetime: timedelta | None
    earned_by: str | None
    risk_weight: float | None
    subject: str | None
    reopen_trigger: str | None


@dataclass(frozen=True, slots=True)
class RankedFactRow(FactRow):
    """A fact a search found, with the score of the channel that found it."""
    score: float


@dataclass(frozen=True, slots=True)
class ContenderRow(FactRow):
    """A parked contender with its slot's current value(s), ' | '-joined."""
    current_value: str | None


def score_of(row: FactRow) -> float:
    """A searched fact's score; 0 for a fact no search ranked."""
    return float(row.score) if isinstance(row, RankedFactRow) else 0.0


def fact_fields(row_type: type = FactRow) -> frozenset[str]:
    """The columns of `facts` a row type reads."""
    return rows.columns_read(FactRow) & rows.columns_read(row_type)


def select_list(row_type: type = FactRow, table: str = "",
                expressions: Mapping[str, str] | None = None) -> str:
    """The SELECT (or RETURNING) list of a cortex row type (facts by default)."""
    return rows.select_list(row_type, expressions, table)


# --- world facts: external facts citing a source ------------------------

# Columns of `world_facts` no row type carries, and why.
UNREAD_WORLD_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one
    "embedding",        # compared in SQL only (search's dense channel)
})


@dataclass(frozen=True, slots=True)
class WorldFactRow(Row):
    """A world fact as every full read returns it (`repo_world.WORLD_COLUMNS`)."""
    id: UUID
    entity: str
    attribute: str
    value: str
    norm_value: str
    source_url: str
    source_quote: str
    freshness: str
    confidence: float
    writer_principal: str
    recorded_at: datetime
    checked_at: datetime
    retired_at: datetime | None
    superseded_by: UUID | None
    retract_reason: str | None
    retracted_by: str | None


@dataclass(frozen=True, slots=True)
class RankedWorldFactRow(WorldFactRow):
    """A world fact a search found, with the score of the channel that found it."""
    score: float


@dataclass(frozen=True, slots=True)
class ErasedRow(Row):
    """What erasing a row returns of it: its id, and its value for the audit's digest."""
    id: UUID
    value: str


def world_score_of(row: WorldFactRow) -> float:
    """A searched world fact's score; 0 for one no search ranked."""
    return float(row.score) if isinstance(row, RankedWorldFactRow) else 0.0


# --- lessons: do/avoid lessons distilled from outcomes -------------------

# Columns of `lessons` no full read carries, and why.
UNREAD_LESSON_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one
    "embedding",        # compared in SQL (search's dense channel); read only by the
                        # merge pass (EmbeddedLessonRow, repo_lessons.embedded)
})


@dataclass(frozen=True, slots=True)
class LessonRow(Row):
    """A lesson as every full read returns it (`repo_lessons.LESSON_COLUMNS`)."""
    id: UUID
    signature: str
    polarity: str
    text: str
    task: str
    confidence: float
    signals: int
    subject_fact_ids: list[UUID]
    distilled_by: str
    created_at: datetime
    updated_at: datetime
    retired_at: datetime | None
    merged_into: UUID | None
    retire_reason: str | None
    retired_by: str | None


@dataclass(frozen=True, slots=True)
class RankedLessonRow(LessonRow):
    """A lesson a search found, with the score of the channel that found it."""
    score: float


@dataclass(frozen=True, slots=True)
class StrongLessonRow(LessonRow):
    """A lesson of the briefing, with the principals whose outcomes its text
    is drawn from (a reader labels peer text by them)."""
    recorded_by: list[str]


@dataclass(frozen=True, slots=True)
class EmbeddedLessonRow(LessonRow):
    """A lesson with its vector, for the merge pass (lesson_merge) only:
    pgvector's Vector (text codec) or an array."""
    embedding: object


def lesson_score_of(row: LessonRow) -> float:
    """A searched lesson's score; 0 for a lesson no search ranked."""
    return float(row.score) if isinstance(row, RankedLessonRow) else 0.0


def recorded_by_of(row: LessonRow) -> list[str]:
    """Who recorded a briefing lesson's outcomes; none for another read."""
    return list(row.recorded_by) if isinstance(row, StrongLessonRow) else []


# --- session changes: what changed about the facts a session was served ---

@dataclass(frozen=True, slots=True)
class SessionChangeRow(Row):
    """A fact a session read that changed since its cursor
    (`repo_session.superseded`, `repo_session.contested`): replaced, retired
    or contested, with the new value, who wrote it and, for a contested one,
    the open conflict (None for the others)."""
    id: UUID
    entity: str
    attribute: str
    value: str
    new_value: str
    by: str
    change: str
    conflict_id: UUID | None


# --- conflicts: two live facts of one slot a reviewer settles -------------

# Columns of `conflicts` no row type carries, and why.
UNREAD_CONFLICT_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one
})


@dataclass(frozen=True, slots=True)
class ConflictRow(Row):
    """A conflict as every read returns it (`repo_conflicts.CONFLICT_COLUMNS`)."""
    id: UUID
    fact_a: UUID
    fact_b: UUID
    lane: str
    status: str
    winner: UUID | None
    reasoning: str
    decided_by: str | None
    opened_at: datetime
    decided_at: datetime | None


# --- tags: the registry of dotted tags and its root proposals ------------

# Columns of `tags` no row type carries, and why.
UNREAD_TAG_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one
})


@dataclass(frozen=True, slots=True)
class TagRow(Row):
    """A registered tag as every read returns it (`repo_tags.TAG_COLUMNS`)."""
    name: str
    parent: str | None
    status: str
    reason: str
    created_by: str
    decided_by: str | None
    created_at: datetime
    decided_at: datetime | None


# --- edges: typed relations between entities ----------------------------

# Columns of `edges` no row type carries, and why.
UNREAD_EDGE_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one
})


@dataclass(frozen=True, slots=True)
class EdgeRow(Row):
    """An edge as every read returns it (`repo_graph.EDGE_COLUMNS`)."""
    id: UUID
    src: str
    relation: str
    dst: str
    provenance: str
    evidence_quote: str
    writer_principal: str
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    retired_at: datetime | None


# --- slots: one (entity, attribute), single- or set-valued ---------------

# Columns of `slots` no row type carries, and why.
UNREAD_SLOT_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one
})


@dataclass(frozen=True, slots=True)
class SlotRow(Row):
    """A slot as its reads return it (`repo.SLOT_COLUMNS`: `repo.lock_slot`,
    `repo.slot_row`)."""
    entity: str
    attribute: str
    set_valued: bool
    created_at: datetime


# --- relations: a namespace's own edge relations --------------------------

# Columns of `relations` no row type carries, and why.
UNREAD_RELATION_COLUMNS = frozenset({
    "namespace",        # RLS scopes every read to one
    "added_by",         # who added it: written (relation_add), never served
})


@dataclass(frozen=True, slots=True)
class RelationRow(Row):
    """A custom relation as `repo_graph.custom_relations` returns it
    (`repo_graph.RELATION_COLUMNS`)."""
    name: str
    inverse: str
    transitive: bool
    is_symmetric: bool


# --- stats: memory_stats' cortex counts ----------------------------------

@dataclass(frozen=True, slots=True)
class FactCountRow(Row):
    """How many facts of one kind have one verdict (`repo_stats.facts_by_kind`)."""
    kind: str
    verdict: str
    n: int


@dataclass(frozen=True, slots=True)
class StatTotalsRow(Row):
    """What waits for a reviewer and the live lessons (`repo_stats.totals`):
    open conflicts, proposed tags, lessons not retired."""
    conflicts: int
    tags: int
    lessons: int


# --- merging: the merge pass's reads of live facts -----------------------

@dataclass(frozen=True, slots=True)
class EntityProfileRow(Row):
    """An entity with live facts (`repo_merge.entity_profiles`): how many, and
    its `attribute=norm_value` pairs."""
    entity: str
    facts: int
    pairs: list[str]


@dataclass(frozen=True, slots=True)
class MergeFactRow(Row):
    """A live fact as the merge pass compares it (`repo_merge.live_of`)."""
    id: UUID
    entity: str
    attribute: str
    value: str
    norm_value: str


# --- the review queue: one keyset-paged listing of open items ------------

@dataclass(frozen=True, slots=True)
class ReviewKeyRow(Row):
    """An open item as the review queue's page lists it (`repo_review.page`):
    its kind, its key (a conflict's id, `tag:<name>`, `contender:<id>`) and
    when it was opened: the listing's order and cursor."""
    kind: str
    key: str
    created_at: datetime
