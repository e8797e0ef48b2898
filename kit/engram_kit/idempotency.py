"""The idempotency ledger, a table `idempotency` in each writing service's
schema: a keyed write's reply is recorded in the write's own transaction, so a
retry after a lost reply is answered, not redone. Keys are per namespace and
expire after KEEP_DAYS."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import asyncpg

from . import locks
from .audit import content_digest
from .errors import Conflict, InvalidArgument

KEY_MAX_CHARS = 200
KEEP_DAYS = 7


@dataclass(frozen=True)
class Keyed:
    """One keyed call: `key` is the caller's idempotency key; `digest` pins the
    request, so a key reused for another request is refused."""
    method: str
    key: str
    digest: str

    @classmethod
    def of(cls, method: str, key: str, *request: Any) -> Keyed | None:
        if not key:
            return None
        if len(key) > KEY_MAX_CHARS:
            raise InvalidArgument(f"idempotency key is at most {KEY_MAX_CHARS} characters",
                                  field="idempotency_key")
        blob = json.dumps([method, *request], default=str, sort_keys=True)
        # keyed, like an audit row's digest: it must not let content be guessed
        return cls(method, key, content_digest(blob))


async def replay(conn: asyncpg.Connection, keyed: Keyed | None) -> dict[str, Any] | None:
    """The recorded reply of an earlier call with this key, if any. Locks the
    key for the transaction, so two concurrent repeats do the write once."""
    if keyed is None:
        return None
    await locks.xact_lock(conn, f"idem/{keyed.key}")
    return await recorded(conn, keyed)


async def recorded(conn: asyncpg.Connection, keyed: Keyed | None) -> dict[str, Any] | None:
    """The recorded reply, read without the key's lock: a committed reply is
    final, so a write may answer a retry before any costly work; None says
    only that none was committed yet (`replay` decides under the lock)."""
    if keyed is None:
        return None
    row = await conn.fetchrow("SELECT method, digest, reply FROM idempotency WHERE key = $1 "
                              "AND at > now() - make_interval(days => $2)", keyed.key,
                              KEEP_DAYS)
    if row is None:
        return None
    if (row["method"], row["digest"]) != (keyed.method, keyed.digest):
        raise Conflict(f"idempotency key {keyed.key!r} was used for a different request; "
                       "use a new key")
    return json.loads(row["reply"])


async def remember(conn: asyncpg.Connection, namespace: str, keyed: Keyed | None,
                   reply: dict[str, Any]) -> None:
    if keyed is None:
        return
    await conn.execute("DELETE FROM idempotency WHERE at < now() - make_interval(days => $1)",
                       KEEP_DAYS)
    await conn.execute(
        """INSERT INTO idempotency (namespace, key, method, digest, reply)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (namespace, key) DO UPDATE SET method = $3, digest = $4, reply = $5,
                 at = clock_timestamp()""",
        namespace, keyed.key, keyed.method, keyed.digest, json.dumps(reply, default=str))
