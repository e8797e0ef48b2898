"""A client's retry key (`request_id`) as the idempotency key of the write it
names: a retry after a lost reply is answered with the first reply."""

from __future__ import annotations

import dataclasses

from engram_kit.context import CallerContext
from engram_kit.errors import InvalidArgument

# It travels as gRPC metadata: printable ASCII, bounded.
REQUEST_ID_MAX_CHARS = 128


def with_request_id(caller: CallerContext, request_id: str) -> CallerContext:
    """The caller whose write carries `request_id` as its idempotency key,
    per principal: two agents choosing the same key never share a reply."""
    if not request_id:
        return caller
    if len(request_id) > REQUEST_ID_MAX_CHARS or not (
            request_id.isascii() and request_id.isprintable()):
        raise InvalidArgument(f"request_id is 1-{REQUEST_ID_MAX_CHARS} printable ASCII "
                              "characters", field="request_id")
    return dataclasses.replace(caller, idempotency_key=f"client/{caller.principal}/{request_id}")
