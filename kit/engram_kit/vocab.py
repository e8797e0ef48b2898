"""The shared vocabularies: one enum per closed set of words that travels
between services or back to a client. StrEnum members compare and serialise
as their value, so the wire stays the plain word."""

from __future__ import annotations

from enum import StrEnum
from typing import cast

from engram.v1 import memory_pb2


class Role(StrEnum):
    """A principal's role (the gateway issues it; every service checks it)."""
    AGENT = "agent"
    REVIEWER = "reviewer"
    OPERATOR = "operator"


REVIEWER_ROLES = frozenset({Role.REVIEWER, Role.OPERATOR})


class Finding(StrEnum):
    """What memory made of a new entry beside its nearest live neighbours
    (memory's findings.py); on the wire as StoreResponse's FINDING_<NAME>, in
    the EntryStored event and the idempotency record as the word."""
    NEW = "new"
    RESTATEMENT = "restatement"
    PARAPHRASE = "paraphrase"
    UPDATE = "update"
    CONFLICT = "conflict"

    def wire(self) -> memory_pb2.Finding:
        return cast("memory_pb2.Finding", memory_pb2.Finding.Value(f"FINDING_{self.name}"))

    @classmethod
    def from_wire(cls, value: int) -> Finding:
        """FINDING_UNSPECIFIED (a reply from before findings) reads as new."""
        name = memory_pb2.Finding.Name(value).removeprefix("FINDING_")
        return cls.NEW if name == "UNSPECIFIED" else cls[name]


class FactAction(StrEnum):
    """What a fact write did (SetFact, SetAdd/SetRemove)."""
    INSERT = "insert"
    CONFIRM = "confirm"
    SUPERSEDE = "supersede"
    CONTEST = "contest"
    PARK = "park"
    REMOVE = "remove"


class EdgeAction(StrEnum):
    """What a graph write did (Relate, Unrelate)."""
    INSERT = "insert"
    CONFIRM = "confirm"
    RETIRE = "retire"


class Lane(StrEnum):
    """Why a fact write took its action."""
    NEW = "new"
    RESTATEMENT = "restatement"
    PARAPHRASE = "paraphrase"
    RULE = "rule"
    EXPLICIT = "explicit"
    GROUND_TRUTH = "ground_truth"
    CONTESTED = "contested"
    ORIGIN_TIER = "origin_tier"
    TOMBSTONE = "tombstone"


class Verdict(StrEnum):
    """A fact's standing."""
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    WITHDRAWN = "withdrawn"
    PARKED = "parked"
    CONTESTED = "contested"


class EvidenceChange(StrEnum):
    """What happened to a memory entry that facts cite as evidence."""
    SUPERSEDED = "superseded"
    CONTESTED = "contested"


class ConflictStatus(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"
    BOTH_STAND = "both_stand"


class TagStatus(StrEnum):
    APPROVED = "approved"
    PROPOSED = "proposed"
    REJECTED = "rejected"


class Origin(StrEnum):
    """Who a fact or entry came from, strongest first (the origin tier)."""
    USER = "user"
    ACTION = "action"
    AGENT = "agent"
    ASSISTANT = "assistant"


class EntryOrigin(StrEnum):
    """Who a memory entry came from: a fact's origins, and `import` (a
    document's or a file's text brought in by a tool, not said by anyone)."""
    USER = "user"
    AGENT = "agent"
    ASSISTANT = "assistant"
    ACTION = "action"
    IMPORT = "import"


class ProposalStatus(StrEnum):
    """A dreamer proposal's standing (an open one past its expiry reads as expired)."""
    OPEN = "open"
    APPLYING = "applying"  # approved, the cortex change not yet confirmed
    APPROVED = "approved"
    REJECTED = "rejected"
    EXPIRED = "expired"


class JournalOp(StrEnum):
    """What a batch write did to a row (cortex's journal)."""
    INSERT = "insert"
    UPDATE = "update"
