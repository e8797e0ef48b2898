"""The typed rows coordination's repositories return, built once in the
repository from the record its SELECT returned; callers read attributes.
A row's SELECT (or RETURNING) list is `select_list` of its fields.

Every column of `leases`, `agents` and `messages` is a field of a row type
or is named in that table's UNREAD_*_COLUMNS (tests/unit/test_coordination_rows.py
checks the migration files)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from engram_kit.rows import Row, columns_read

# Columns of `leases` no row type carries, and why.
UNREAD_LEASE_COLUMNS = frozenset({
    "namespace",  # RLS scopes every tenant read to one (the sweep reads LeaseKey)
})

# Columns of `agents` no row type carries, and why.
UNREAD_AGENT_COLUMNS = frozenset({
    "namespace",  # RLS scopes every read to the caller's namespace
    "created_at",  # registration time: kept for operators, no reply shows it
})

# Columns of `messages` no row type carries, and why.
UNREAD_MESSAGE_COLUMNS = frozenset({
    "namespace",  # RLS scopes every read to the caller's namespace
    "redacted_at",  # who erased a body and when is in the audit chain;
    "redacted_by",  # a reply shows only that the body is gone (body IS NULL)
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
    return columns_read(ListedLease, expressions=LEASE_EXPRESSIONS)


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


@dataclass(frozen=True, slots=True)
class AgentRow(Row):
    """An agent on the board, as presence reads and writes it."""
    id: str
    principal: str
    project: str
    task: str
    status: str
    status_at: datetime
    last_seen: datetime
    expect_at: datetime | None
    children: str  # jsonb text, as asyncpg returns it: [{"label", "since"}]
    park_reason: str | None  # None: not parked
    park_needs: str
    park_clear_by: str
    park_resume: str
    park_expires: datetime | None
    park_set_at: datetime | None

    def child_list(self) -> list[dict[str, Any]]:
        """The children, decoded: [{"label": ..., "since": iso timestamp}]."""
        return list(json.loads(self.children) or [])


@dataclass(frozen=True, slots=True)
class AgentCounts(Row):
    """Peers of the caller on the board: seen within the window, and before."""
    active: int
    older: int


def agent_fields() -> frozenset[str]:
    """The columns of `agents` the row types read."""
    return columns_read(AgentRow)


@dataclass(frozen=True, slots=True)
class InboxMessage(Row):
    """An unacked message as receive lists it."""
    id: UUID
    sender: str
    sender_principal: str
    addressed_to: str
    request_id: str
    kind: str
    body: str | None  # None: redacted or erased
    sent_at: datetime


@dataclass(frozen=True, slots=True)
class SentMessage(Row):
    """A message an earlier send with the same request_id wrote (dedup)."""
    id: UUID
    recipient: str
    body_hmac: str
    addressed_to: str


@dataclass(frozen=True, slots=True)
class MessageOwner(Row):
    """Whose a message is and whether it was acked, for ack."""
    id: UUID
    recipient: str
    acked_at: datetime | None


# Fields of message rows that are expressions, not columns of `messages`.
MESSAGE_EXPRESSIONS = frozenset({"recipient_principal"})  # LockedMessage joins agents


def message_fields() -> frozenset[str]:
    """The columns of `messages` the row types read."""
    types = (InboxMessage, SentMessage, MessageOwner, ErasedBody, LockedMessage)
    return columns_read(*types, expressions=MESSAGE_EXPRESSIONS)
