"""Upgrading a bank written before content digests were keyed: memory v14
drops tombstone excerpts and clears their unkeyed hashes, and the lexicon
lets go of the words of rows forgotten before; coordination v4 clears the
unkeyed body hashes of mail (a redacted body's hash outlived it). Run in
scratch schemas of the session stack's Postgres."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlparse

import asyncpg
import pytest

from engram_coordination.main import MIGRATIONS as COORDINATION_MIGRATIONS
from engram_kit.migrate import apply_migrations
from engram_memory.main import MIGRATIONS as MEMORY_MIGRATIONS


def migrations_before(directory: Path, version: int, into: Path) -> Path:
    into.mkdir()
    for path in sorted(directory.glob("*.sql")):
        if int(path.name.split("_")[0]) < version:
            shutil.copy(path, into / path.name)
    return into


@pytest.fixture
async def scratch(admin_dsn: str) -> AsyncIterator[tuple[str, str, asyncpg.Connection]]:
    """A schema and a runtime role of their own, dropped afterwards."""
    name = f"upgrade_{uuid.uuid4().hex[:8]}"
    admin = urlparse(admin_dsn)
    service_dsn = f"postgresql://{name}:pw{name}@{admin.hostname}:{admin.port}{admin.path}"
    conn = await asyncpg.connect(admin_dsn)
    try:
        yield name, service_dsn, conn
    finally:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        await conn.execute(f'DROP ROLE IF EXISTS "{name}"')
        await conn.close()


async def test_memory_v14_clears_excerpts_hashes_and_orphan_words(
        scratch: tuple[str, str, asyncpg.Connection], admin_dsn: str, tmp_path: Path):
    schema, service_dsn, conn = scratch
    old = migrations_before(MEMORY_MIGRATIONS, 14, tmp_path / "memory")
    await apply_migrations(admin_dsn, service_dsn, schema, old)
    await conn.execute(f'SET search_path TO "{schema}", public')
    entry = uuid.uuid4()
    await conn.execute(
        "INSERT INTO entries (id, namespace, text, text_hash, writer_principal, valid_from)"
        " VALUES ($1, 'ns', 'zqlegacyword opens the door', 'abc', 'p', now())", entry)
    await conn.execute("DELETE FROM entries WHERE id = $1", entry)
    assert await conn.fetchval("SELECT df FROM lexemes WHERE lexeme = 'zqlegacyword'") == 0
    await conn.execute(
        "INSERT INTO tombstones (id, namespace, entry_id, content_hash, excerpt, reason,"
        " forgotten_by) VALUES (gen_random_uuid(), 'ns', $1, 'plainsha', 'zqlegacyword opens',"
        " 'private', 'p')", entry)

    # v14 first; the migrations landed after it follow in the same upgrade.
    applied = await apply_migrations(admin_dsn, service_dsn, schema, MEMORY_MIGRATIONS)
    assert applied[0] == 14 and applied == sorted(applied)
    row = await conn.fetchrow("SELECT * FROM tombstones")
    assert row is not None
    stone = dict(row)
    assert "excerpt" not in stone and stone["content_hmac"] == ""
    assert stone["reason"] == "private"
    assert await conn.fetchval("SELECT count(*) FROM lexemes WHERE df <= 0") == 0

    again = uuid.uuid4()  # and from now on a forgotten row's words go with it
    await conn.execute(
        "INSERT INTO entries (id, namespace, text, text_hash, writer_principal, valid_from)"
        " VALUES ($1, 'ns', 'zqnewword stays a secret', 'def', 'p', now())", again)
    await conn.execute("DELETE FROM entries WHERE id = $1", again)
    assert await conn.fetchval("SELECT count(*) FROM lexemes WHERE lexeme = 'zqnewword'") == 0


async def test_coordination_v4_clears_unkeyed_body_hashes(
        scratch: tuple[str, str, asyncpg.Connection], admin_dsn: str, tmp_path: Path):
    schema, service_dsn, conn = scratch
    old = migrations_before(COORDINATION_MIGRATIONS, 4, tmp_path / "coordination")
    await apply_migrations(admin_dsn, service_dsn, schema, old)
    await conn.execute(f'SET search_path TO "{schema}", public')
    await conn.execute(
        "INSERT INTO messages (namespace, id, batch_id, sender, sender_principal, recipient,"
        " addressed_to, body, body_sha256) VALUES ('ns', gen_random_uuid(), gen_random_uuid(),"
        " 'a', 'p', 'b', 'b', NULL, 'plainsha')")

    applied = await apply_migrations(admin_dsn, service_dsn, schema, COORDINATION_MIGRATIONS)
    assert applied[0] == 4 and applied == sorted(applied)
    row = await conn.fetchrow("SELECT * FROM messages")
    assert row is not None
    message = dict(row)
    assert "body_sha256" not in message and message["body_hmac"] == ""
