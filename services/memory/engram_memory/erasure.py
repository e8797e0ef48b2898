"""Erasure beyond one entry: a document forgotten for good, and what one
writer (a rogue or broken agent) stored in a time window."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import asyncpg

from engram_kit import audit
from engram_kit.context import CallerContext
from engram_kit.errors import InvalidArgument, NotFound, PermissionDenied
from engram_kit.outbox import enqueue
from engram_kit.vocab import Role
from engram_kit.writer_window import WriterWindow

from . import repo_documents, repo_forget
from .events import entries_forgotten_event
from .service import forgotten_digest
from .settings import MemorySettings
from .validation import clean_text


@dataclass(frozen=True)
class DocumentForgotten:
    document_id: uuid.UUID
    chunks: int
    tombstone: uuid.UUID


@dataclass(frozen=True)
class WriterForgotten:
    ids: list[uuid.UUID]
    more: bool
    limit: int


def clean_reason(reason: str) -> str:
    return clean_text(reason, 500, "reason")


def check_window(w: WriterWindow) -> WriterWindow:
    w = w.checked()
    return WriterWindow(w.principal, w.since, w.until, clean_reason(w.reason), w.dry_run)


class Erasure:
    def __init__(self, pool: asyncpg.Pool, settings: MemorySettings) -> None:
        self.pool = pool
        self.s = settings

    async def forget_document(self, ctx: CallerContext, document_id: str,
                              reason: str) -> DocumentForgotten:
        """The document, its chunks, vectors and original file are deleted;
        the tombstone keeps a keyed digest of the content, never words."""
        namespace = ctx.require_namespace()
        reason = clean_reason(reason)
        try:
            doc_id = uuid.UUID(document_id.strip())
        except ValueError:
            raise InvalidArgument(f"document_id must be a document id (a UUID), got "
                                  f"{document_id[:40]!r}", field="document_id") from None
        async with audit.audited_tx(self.pool, namespace) as conn:
            row = await repo_documents.lock_document(conn, doc_id)
            if row is None:
                stone = await repo_documents.tombstone_for_document(conn, doc_id)
                if stone is not None:
                    raise NotFound(f"document {doc_id} was forgotten at "
                                   f"{stone.forgotten_at.isoformat()} ({stone.reason})",
                                   field="document_id")
                raise NotFound(f"document {doc_id} does not exist in this namespace",
                               field="document_id")
            body = row.original or row.content.encode()
            await repo_documents.delete_document(conn, doc_id)
            stone_id = await repo_documents.add_tombstone(
                conn, namespace, doc_id, audit.content_digest(body), reason, ctx.principal)
            await audit.append(conn, namespace, ctx.principal, "document.forget", str(doc_id),
                               {"chunks": row.chunks, "reason": reason})
        return DocumentForgotten(doc_id, row.chunks, stone_id)

    async def forget_by_writer(self, ctx: CallerContext, window: WriterWindow) -> WriterForgotten:
        """Entries one principal stored in [since, until), oldest first, at
        most forget_writer_max_rows per call; `more` says when some remain."""
        if ctx.role != Role.OPERATOR:
            raise PermissionDenied("forgetting what a writer stored needs the operator role; "
                                   f"you are {ctx.role or Role.AGENT}")
        namespace, w = ctx.require_namespace(), check_window(window)
        limit = self.s.forget_writer_max_rows
        async with audit.audited_tx(self.pool, namespace) as conn:
            rows = await repo_forget.select_by_writer(conn, w.principal, w.since, w.until,
                                                      limit + 1)
            more, rows = len(rows) > limit, rows[:limit]
            ids = [r.id for r in rows]
            if w.dry_run or not ids:
                return WriterForgotten(ids, more, limit)
            for r in rows:
                await repo_forget.add_tombstone(conn, namespace, r.id, forgotten_digest(r.text),
                                                w.reason, ctx.principal)
            await repo_forget.delete_entries(conn, ids)
            event_id, subject, payload = entries_forgotten_event(ctx, ids, w.reason)
            await enqueue(conn, event_id, namespace, subject, payload)
            await audit.append(conn, namespace, ctx.principal, "entry.forget_by_writer",
                               w.principal, {"ids": [str(i) for i in ids], "reason": w.reason,
                                             "more": more})
        return WriterForgotten(ids, more, limit)
