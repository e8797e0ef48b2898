"""A database built while a landed migration had an earlier text (memory
0007, 0011, 0013 and dreamer 0004 were edited after they landed) starts with
the current code: the runner accepts the superseded checksums recorded in
migrations.lock, the repair migrations bring the schema to exactly what a
fresh database gets, and any other mismatch is refused by name. Run in
scratch schemas of the session stack's Postgres."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlparse

import asyncpg
import pytest

from engram_kit.migrate import MigrationChanged, apply_migrations

ROOT = Path(__file__).resolve().parents[2]
SUPERSEDED = ROOT / "tests" / "fixtures" / "superseded_migrations"
OLD_TEXTS = sorted(SUPERSEDED.glob("*/*.sql"))

# The shape of a schema, with its own name taken out so two schemas compare.
SHAPE = [
    """SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod),
              a.attnotnull, pg_get_expr(d.adbin, d.adrelid)
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped
         AND c.relkind IN ('r', 'p', 'v', 'm')""",
    """SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
       WHERE connamespace = $1::regnamespace""",
    """SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1""",
    """SELECT p.proname, pg_get_function_identity_arguments(p.oid), p.prosrc,
              p.proconfig::text, p.provolatile FROM pg_proc p
       WHERE p.pronamespace = $1::regnamespace""",
    """SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger
       WHERE NOT tgisinternal
         AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = $1::regnamespace)""",
    """SELECT tablename, policyname, cmd, qual, with_check FROM pg_policies
       WHERE schemaname = $1""",
]


async def shape(conn: asyncpg.Connection, schema: str) -> set[str]:
    rows: set[str] = set()
    for query in SHAPE:
        for r in await conn.fetch(query, schema):
            text = repr(tuple(r)).replace(f'"{schema}"', "S").replace(schema, "S")
            rows.add(text)
    return rows


def migrations_dir(service: str) -> Path:
    return next(ROOT.glob(f"services/{service}/engram_{service}/migrations"))


def old_tree(old_text: Path, into: Path) -> Path:
    """The service's migrations up to the edited one, with its earlier text."""
    current = migrations_dir(old_text.parent.name)
    version = int(old_text.name.split("_")[0])
    into.mkdir()
    for path in sorted(current.glob("*.sql")):
        if int(path.name.split("_")[0]) < version:
            shutil.copy(path, into / path.name)
    shutil.copy(old_text, into / (old_text.name.split(".")[0] + ".sql"))
    return into


@pytest.fixture
async def scratch(admin_dsn: str) -> AsyncIterator[
        tuple[list[str], list[str], asyncpg.Connection]]:
    names = [f"sup_{uuid.uuid4().hex[:8]}" for _ in range(2)]
    admin = urlparse(admin_dsn)
    conn = await asyncpg.connect(admin_dsn)

    def dsn(name: str) -> str:
        return f"postgresql://{name}:pw{name}@{admin.hostname}:{admin.port}{admin.path}"
    try:
        yield names, [dsn(n) for n in names], conn
    finally:
        for name in names:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
            await conn.execute(f'DROP ROLE IF EXISTS "{name}"')
        await conn.close()


@pytest.mark.parametrize("old_text", OLD_TEXTS, ids=lambda p: f"{p.parent.name}-{p.stem}")
async def test_database_built_from_an_earlier_text_upgrades_to_the_fresh_schema(
        old_text: Path, scratch, admin_dsn: str, tmp_path: Path) -> None:
    (old, fresh), (old_dsn, fresh_dsn), conn = scratch
    current = migrations_dir(old_text.parent.name)
    await apply_migrations(admin_dsn, old_dsn, old, old_tree(old_text, tmp_path / "old"))

    applied = await apply_migrations(admin_dsn, old_dsn, old, current)
    assert applied, "the later migrations (and the repair) apply"
    await apply_migrations(admin_dsn, fresh_dsn, fresh, current)
    got, want = await shape(conn, old), await shape(conn, fresh)
    assert got - want == set() and want - got == set()


async def test_an_unknown_checksum_in_the_ledger_is_refused_by_name(
        scratch, admin_dsn: str) -> None:
    (schema, _), (dsn, _), conn = scratch
    current = migrations_dir("dreamer")
    await apply_migrations(admin_dsn, dsn, schema, current)
    await conn.execute(
        f'UPDATE "{schema}".schema_migrations SET checksum = $1 WHERE version = 2', "0" * 64)
    with pytest.raises(MigrationChanged, match=r"0002_passes\.sql was applied .* 0{64}"):
        await apply_migrations(admin_dsn, dsn, schema, current)
