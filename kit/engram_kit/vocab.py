"""The shared vocabularies: one enum per closed set of words that travels
between services or back to a client. StrEnum members compare and serialise
as their value, so the wire stays the plain word."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    """A principal's role (the gateway issues it; every service checks it)."""
    AGENT = "agent"
    REVIEWER = "reviewer"
    OPERATOR = "operator"


REVIEWER_ROLES = frozenset({Role.REVIEWER, Role.OPERATOR})


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
