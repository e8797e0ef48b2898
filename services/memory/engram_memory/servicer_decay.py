"""Replies of decay and rescue (MemoryServicer delegates to these)."""

from __future__ import annotations

import uuid
from typing import Any

from engram.v1 import memory_pb2
from engram_kit.context import current_caller
from engram_kit.errors import InvalidArgument
from engram_kit.timestamps import to_timestamp

from .decay import Decay


def _entry_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise InvalidArgument(f"entry_id must be an entry id (a UUID), got {value[:40]!r}",
                              field="entry_id") from None


async def rescue(decay: Decay, request: Any) -> memory_pb2.RescueResponse:
    done = await decay.rescue(current_caller(), _entry_id(request.entry_id), request.reason)
    return memory_pb2.RescueResponse(id=str(done.entry_id), was_archived=done.was_archived,
                                     rescued_at=to_timestamp(done.rescued_at))


async def archive_stale(decay: Decay, request: Any) -> memory_pb2.ArchiveStaleResponse:
    ids = await decay.archive_stale(current_caller(), request.unused_for_s, request.limit,
                                    request.batch)
    return memory_pb2.ArchiveStaleResponse(archived=[str(i) for i in ids])


async def unarchive(decay: Decay, request: Any) -> memory_pb2.UnarchiveResponse:
    restored = await decay.unarchive(current_caller(), request.batch)
    return memory_pb2.UnarchiveResponse(restored=restored)
