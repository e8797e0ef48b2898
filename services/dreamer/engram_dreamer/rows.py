"""The typed rows the dreamer's repositories return, built once in the
repository from the record its SELECT returned; callers read attributes.
A row's SELECT (or RETURNING) list is `select_list` of its fields.

Every column of `proposals` is a field of `Proposal` or is named in
`UNREAD_PROPOSAL_COLUMNS` (tests/unit/test_dreamer_rows.py checks the
migration files)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from uuid import UUID

from engram_kit.rows import Row

# Columns of `proposals` no row type carries, and why.
UNREAD_PROPOSAL_COLUMNS = frozenset({
    "namespace",  # RLS scopes every read to one
    "signature",  # matched by the insert's ON CONFLICT, never returned
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
    return frozenset(f.name for f in fields(Proposal))
