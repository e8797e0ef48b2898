"""Postgres advisory locks on names, with 64-bit keys no tenant can aim.

A name becomes the first 64 bits of its SHA-256, computed in SQL so a lock
costs no extra round trip. `hashtext` gave 32 bits: a tenant could craft an
entity name whose key equalled another tenant's slot, namespace or sender
lock (a birthday search takes seconds) and so stall or deadlock its writes.
Hitting a given 64-bit SHA-256 prefix is out of reach."""

from __future__ import annotations

import hashlib

import asyncpg

from .db import fetchval_one


def key_sql(name_expr: str) -> str:
    """The SQL expression of the lock key of the text expression `name_expr`."""
    return (f"('x' || left(encode(sha256(convert_to({name_expr}, 'UTF8')), 'hex'), 16))"
            "::bit(64)::bigint")


def lock_key(name: str) -> int:
    """The key `key_sql` computes, for a caller outside a query."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


async def xact_lock(conn: asyncpg.Connection, name: str) -> None:
    """A lock on `name` held to the end of the current transaction."""
    await conn.execute(f"SELECT pg_advisory_xact_lock({key_sql('$1::text')})", name)


async def try_session_lock(conn: asyncpg.Connection, name: str) -> bool:
    """A lock on `name` held by the connection until `session_unlock`, if free now."""
    return await fetchval_one(conn, f"SELECT pg_try_advisory_lock({key_sql('$1::text')})",
                              name)


async def session_unlock(conn: asyncpg.Connection, name: str) -> None:
    await conn.execute(f"SELECT pg_advisory_unlock({key_sql('$1::text')})", name)
