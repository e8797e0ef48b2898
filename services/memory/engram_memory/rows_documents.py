"""The typed rows memory's document, re-embed queue and stats repositories
return (repo_documents.py, repo_vector_queue.py, repo_hygiene.py), built
once in the repository; callers read attributes.

Every column of `documents` is a field of one of `DOCUMENT_ROWS` or is
named in `UNREAD_DOCUMENT_COLUMNS` (tests/unit/test_rows.py checks the
migration files)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from engram_kit.rows import Row, columns_read

# Columns of `documents` no row type carries, and why.
UNREAD_DOCUMENT_COLUMNS = frozenset({
    "namespace",     # RLS scopes every read to one
    "content_hash",  # matched in SQL (find_by_hash), never returned
})


@dataclass(frozen=True, slots=True)
class KnownDocument(Row):
    """A document already ingested with the same bytes (a duplicate ingest)."""
    id: UUID
    chunks: int
    embedded: bool  # every chunk has its vector


@dataclass(frozen=True, slots=True)
class LockedDocument(Row):
    """A document locked to be forgotten: what its tombstone digests."""
    id: UUID
    content: str
    original: bytes | None
    chunks: int


@dataclass(frozen=True, slots=True)
class DocumentMeta(Row):
    """document_get's metadata of a document."""
    id: UUID
    source: str
    title: str
    format: str
    chars: int
    created_by: str
    created_at: datetime
    chunks: int


@dataclass(frozen=True, slots=True)
class ChunkHitRow(Row):
    """A chunk a search serves, with its document's source, title and date."""
    id: UUID
    document_id: UUID
    ordinal: int
    start_char: int
    text: str
    source: str
    title: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ChunkRow(Row):
    """A chunk of document_get's page."""
    ordinal: int
    start_char: int
    text: str
    embedded: bool


@dataclass(frozen=True, slots=True)
class DocumentTombstone(Row):
    id: UUID
    reason: str
    forgotten_at: datetime


# Fields of the document rows that are not columns of `documents`.
DOCUMENT_EXPRESSIONS = frozenset({"chunks", "embedded", "chars"})
DOCUMENT_ROWS: tuple[type, ...] = (KnownDocument, LockedDocument, DocumentMeta)


def document_fields() -> frozenset[str]:
    """The columns of `documents` the row types read (ChunkHitRow's source,
    title and created_at are the document's too)."""
    return columns_read(*DOCUMENT_ROWS, expressions=DOCUMENT_EXPRESSIONS)


# --- the re-embed queues ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Queued(Row):
    """A queued row, listed across namespaces (the sweep's duty)."""
    namespace: str
    id: UUID


@dataclass(frozen=True, slots=True)
class ContextText(Row):
    """An entry waiting for its context vector, with the texts of the line
    before it and the one before that."""
    id: UUID
    text: str
    context_of: UUID
    context_of_prior: UUID | None
    before_text: str
    prior_text: str | None


# --- memory_stats ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Counts(Row):
    """A namespace's exact counts."""
    live: int
    archived: int
    superseded: int
    unembedded: int
    documents: int
    chunks: int
    tombstones: int


@dataclass(frozen=True, slots=True)
class TableSize(Row):
    """A table's bytes (indexes and TOAST included) and planner row estimate."""
    name: str
    bytes: int
    rows: int
