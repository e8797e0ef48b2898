"""The typed rows the dreamer's repositories return, built once in the
repository from the record its SELECT returned; callers read attributes.
A row's SELECT (or RETURNING) list is `select_list` of its fields.

Every column of `proposals` and `runs` is a field of `Proposal` or `RunRow`
or is named in `UNREAD_PROPOSAL_COLUMNS` / `UNREAD_RUN_COLUMNS`
(tests/unit/test_dreamer_rows.py checks the migration files)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from engram_kit.rows import Row, columns_read

# Columns of `proposals` no row type carries, and why.
UNREAD_PROPOSAL_COLUMNS = frozenset({
    "namespace",  # RLS scopes every read to one
    "signature",  # matched by the insert's ON CONFLICT, never returned
})

# Columns of `runs` no row type carries, and why.
UNREAD_RUN_COLUMNS = frozenset({
    "namespace",  # RLS scopes every read to one
    "inputs",  # the entries read: paged by inputs_page, counted by totals, never whole
})


@dataclass(frozen=True, slots=True)
class Proposal(Row):
    """A proposal for review, as listed, decided and applied."""
    id: UUID
    kind: str
    status: str
    src: str
    relation: str
    dst: str
    evidence_quote: str
    run_id: UUID
    created_at: datetime
    expires_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    reasoning: str
    entity: str
    value: str
    source_ref: str
    entry_ids: list[str]


@dataclass(frozen=True, slots=True)
class DecidedProposal(Row):
    """A decided proposal of a run (it blocks the run's rollback)."""
    id: UUID
    status: str


def proposal_fields() -> frozenset[str]:
    return columns_read(Proposal)


@dataclass(frozen=True, slots=True)
class RunRow(Row):
    """A dream run, as listed, finished, rolled back and detailed."""
    id: UUID
    trigger: str
    extractor: str
    model: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    entries: int
    candidates: int
    facts_written: int
    dropped_unanchored: int
    quarantined: int
    errors: int
    counts: str  # jsonb text, as asyncpg returns it
    error_detail: str
    proposals: int

    def count_map(self) -> dict[str, Any]:
        """The run's counts, decoded (duration_s, actions, archived, ...)."""
        return json.loads(self.counts or "{}")


def run_fields() -> frozenset[str]:
    return columns_read(RunRow)


@dataclass(frozen=True, slots=True)
class PendingStats(Row):
    """What waits for the next pass in a namespace: entries and marks."""
    n: int
    newest: datetime | None
    marks: int


@dataclass(frozen=True, slots=True)
class EventStats(Row):
    """The events the dreamer processed in a namespace."""
    n: int
    last: datetime | None


@dataclass(frozen=True, slots=True)
class OpenMark(Row):
    """Work a cortex event marked for the next pass."""
    kind: str
    key: str


@dataclass(frozen=True, slots=True)
class PendingWork(Row):
    """Per namespace, what waits (entries and marks): the scheduler's input."""
    namespace: str
    n: int
    oldest: datetime | None
    newest: datetime | None


@dataclass(frozen=True, slots=True)
class RunFact(Row):
    """A fact a run wrote (or touched) from an entry."""
    fact_id: UUID
    entry_id: UUID
    action: str
    kind: str


@dataclass(frozen=True, slots=True)
class QuarantinedEntry(Row):
    """An entry a run quarantined, with why."""
    entry_id: UUID
    reason: str


@dataclass(frozen=True, slots=True)
class RunTotals(Row):
    """How many rows of each kind a run touched, and what a rollback reopens."""
    inputs: int
    facts: int
    quarantined: int
    settled: int
    marks: int
    open_proposals: int
