"""The typed rows coordination's repositories return, built once in the
repository from the record its SELECT returned; callers read attributes.
A row's SELECT (or RETURNING) list is `select_list` of its fields.

Every column of `leases` is a field of `LeaseRow` or is named in
`UNREAD_LEASE_COLUMNS` (tests/unit/test_coordination_rows.py checks the
migration files)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from uuid import UUID

from engram_kit.rows import Row

# Columns of `leases` no row type carries, and why.
UNREAD_LEASE_COLUMNS = frozenset({
    "namespace",  # RLS scopes every tenant read to one (the sweep reads LeaseKey)
})

# Fields that are expressions, not columns of `leases`: what each selects.
LEASE_EXPRESSIONS = {
    "now": "now() AS now",  # the database's clock, beside the row it judges
    "waiting": "coalesce((SELECT array_agg(q.agent_id ORDER BY q.seq) FROM lease_queue q"
               " WHERE q.name = l.name), '{}') AS waiting",
}


@dataclass(frozen=True, slots=True)
class LeaseRow(Row):
    """A lease as a write returns it (grant, renew, release, expiry)."""
    name: str
    holder: str | None  # agent id; None: free
    last_token: int
    granted_at: datetime | None
    expires_at: datetime | None
    free_since: datetime | None
    offered_to: str | None


@dataclass(frozen=True, slots=True)
class LeaseAt(LeaseRow):
    """A lease read with the database's clock (lock_lease, state)."""
    now: datetime


@dataclass(frozen=True, slots=True)
class ListedLease(LeaseAt):
    """A lease board_leases lists, with its waiters in queue order."""
    waiting: list[str]


@dataclass(frozen=True, slots=True)
class LeaseKey(Row):
    """A lease the sweep settles, listed across namespaces."""
    namespace: str
    name: str


@dataclass(frozen=True, slots=True)
class ExpiredLease(Row):
    """A lease the board sweep expired: its last fencing token."""
    name: str
    last_token: int


def lease_fields() -> frozenset[str]:
    """The columns of `leases` the row types read (expressions left out)."""
    return frozenset(f.name for f in fields(ListedLease) if f.name not in LEASE_EXPRESSIONS)


@dataclass(frozen=True, slots=True)
class ErasedBody(Row):
    """A message whose body was dropped (sweep, redact, forget): its digest."""
    id: UUID
    body_hmac: str


@dataclass(frozen=True, slots=True)
class BoardCounts(Row):
    """A namespace's board, for memory_stats."""
    agents: int
    active: int
    held: int
    waiters: int
    pending: int
    acked_bodies: int


@dataclass(frozen=True, slots=True)
class LockedMessage(Row):
    """A message locked to be forgotten, with its recipient agent's principal."""
    id: UUID
    batch_id: UUID
    sender_principal: str
    recipient: str
    recipient_principal: str | None  # None: the recipient agent has retired
