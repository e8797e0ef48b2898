"""Append-only, hash-chained audit rows, one chain per namespace per schema.

Each row carries the previous row's hash and its own: sha256 over the
previous hash and the row's content. Altering a row breaks its hash;
deleting one breaks the next row's link. Rows are written in the same
transaction as the change they describe (the caller's), under a
per-namespace lock so the chain has one order.

Content (a value, a quote, a message) enters a row only as a keyed digest:
HMAC-SHA256 under the stack's audit key (ENGRAM_AUDIT_HMAC_KEY). A plain
hash of a short secret gives it back to a dictionary; a keyed one does not
without the key. The chain hashes themselves stay plain SHA-256: they cover
only what the row holds, so rows written before content was keyed verify
exactly as they did."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg

from engram_kit import locks
from engram_kit.db import tenant_tx

GENESIS = "0" * 64


# Set once at service start (use_key); a digest without it fails closed.
_KEY: dict[str, bytes] = {}


def use_key(key: str) -> None:
    """The per-stack key every content digest of this process is made with."""
    if len(key) < 16:
        raise ValueError("the audit key must have at least 16 characters")
    _KEY["audit"] = key.encode()


def content_digest(content: str | bytes) -> str:
    """What an audit row, tombstone or message keeps of content: its keyed
    digest, enough to recognise the same content again, never to recover it."""
    key = _KEY.get("audit")
    if key is None:
        raise RuntimeError("no audit key: the service must call audit.use_key at start "
                           "(ENGRAM_AUDIT_HMAC_KEY)")
    data = content.encode() if isinstance(content, str) else content
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def canonical(value: Any) -> Any:
    """The form a value has after a round trip through jsonb."""
    return json.loads(json.dumps(value, default=str))


def row_hash(prev: str, namespace: str, at: datetime, principal: str, action: str,
             subject: str, detail: Any, extra: dict[str, Any]) -> str:
    payload = json.dumps([prev, namespace, at.astimezone(UTC).isoformat(), principal, action,
                          subject, canonical(detail), canonical(extra)],
                         sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


async def lock_chain(conn: asyncpg.Connection, namespace: str) -> None:
    """Take the namespace's chain lock (held to the end of the transaction)."""
    name = "'audit/' || current_schema() || '/' || $1::text"
    await conn.execute(f"SELECT pg_advisory_xact_lock({locks.key_sql(name)})", namespace)


@asynccontextmanager
async def audited_tx(pool: asyncpg.Pool, namespace: str) -> AsyncIterator[asyncpg.Connection]:
    """A tenant transaction for a write that appends to the audit chain. It
    takes the chain lock first, before any row or advisory lock: a write that
    took row locks and then queued for the chain lock held by another that
    then wanted one of those rows deadlocked (Postgres aborts one of them), so
    the namespace's audited writes are serialised from their start instead."""
    async with tenant_tx(pool, namespace) as conn:
        await lock_chain(conn, namespace)
        yield conn


async def append(conn: asyncpg.Connection, namespace: str, principal: str, action: str,
                 subject: str = "", detail: dict[str, Any] | None = None,
                 extra: dict[str, str] | None = None) -> str:
    """Append to `audit` (the schema on the search path); returns the hash."""
    extra = extra or {}
    await lock_chain(conn, namespace)
    prev = await conn.fetchval(
        "SELECT hash FROM audit WHERE namespace = $1 AND hash <> '' ORDER BY id DESC LIMIT 1",
        namespace) or GENESIS
    at = datetime.now(UTC)
    detail = canonical(detail or {})
    digest = row_hash(prev, namespace, at, principal, action, subject, detail, extra)
    cols = ["namespace", "at", "principal", "action", "subject", "detail", "prev_hash",
            "hash", *extra]
    marks = ", ".join(f"${i + 1}" for i in range(len(cols)))
    await conn.execute(
        f"INSERT INTO audit ({', '.join(cols)}) VALUES ({marks.replace('$6', '$6::jsonb')})",
        namespace, at, principal, action, subject, json.dumps(detail), prev, digest,
        *extra.values())
    return digest


@dataclass(frozen=True)
class Problem:
    schema: str
    namespace: str
    row_id: int
    what: str


async def verify(conn: asyncpg.Connection, schema: str,
                 extra_columns: tuple[str, ...] = ()) -> tuple[int, list[Problem]]:
    """Recompute every chain in `schema`.audit (an admin connection reads all
    namespaces). Returns (rows checked, problems). A row without a hash is
    one written before chains existed, so it may only come before its
    namespace's first chained row: after it, a blank hash would hide a row
    (an appended or altered last row) from the check."""
    extra_sql = "".join(f", {c}" for c in extra_columns)
    rows = await conn.fetch(
        f"SELECT id, namespace, at, principal, action, subject, detail, prev_hash, hash"
        f"{extra_sql} FROM \"{schema}\".audit ORDER BY namespace, id")
    problems: list[Problem] = []
    last: dict[str, str] = {}
    for r in rows:
        ns = r["namespace"]
        if not r["hash"]:
            if ns in last:
                problems.append(Problem(schema, ns, r["id"], "a row without a hash after the "
                                        "chain began"))
            continue
        expected_prev = last.get(ns, GENESIS)
        if r["prev_hash"] != expected_prev:
            problems.append(Problem(schema, ns, r["id"], "link broken: the row before it was "
                                    "deleted or altered"))
        detail = json.loads(r["detail"]) if isinstance(r["detail"], str) else r["detail"]
        extra = {c: r[c] for c in extra_columns}
        if row_hash(r["prev_hash"], ns, r["at"], r["principal"], r["action"], r["subject"],
                    detail, extra) != r["hash"]:
            problems.append(Problem(schema, ns, r["id"], "content altered: hash mismatch"))
        last[ns] = r["hash"]
    return len(rows), problems
