"""Proto messages shared by the servicer modules."""

from __future__ import annotations

from engram.v1 import memory_pb2
from engram_kit.timestamps import to_timestamp

from .rows import EntryRow
from .service import StoreResult


def entry_message(row: EntryRow) -> memory_pb2.Entry:
    return memory_pb2.Entry(
        id=str(row.id), text=row.text, source=row.source, tags=list(row.tags),
        origin=row.origin, episode=row.episode or "", status=row.status,
        created_at=to_timestamp(row.created_at), valid_from=to_timestamp(row.valid_from),
        writer_principal=row.writer_principal, embedded=row.embedded,
    )


def store_response(result: StoreResult) -> memory_pb2.StoreResponse:
    stone = result.reasserts_forgotten
    return memory_pb2.StoreResponse(
        id=str(result.id), finding=result.finding.wire(),
        related=[str(r) for r in result.related],
        superseded=[str(s) for s in result.superseded], embedded=result.embedded,
        entry=entry_message(result.entry), contested_with=[str(c) for c in result.contested_with],
        reasserts_forgotten=memory_pb2.Tombstone(
            id=str(stone.id), reason=stone.reason,
            forgotten_at=to_timestamp(stone.forgotten_at)) if stone else None,
    )
