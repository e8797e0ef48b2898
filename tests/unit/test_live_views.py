"""Each `live_<table>` view is `SELECT * FROM <table> WHERE ...`, and
Postgres expands the `*` when the view is made: a migration that adds a
column to the table must re-create the view after it (CREATE OR REPLACE
VIEW), or the view serves rows without the column. Checked on the migration
files, without a stack (tests/integration/test_live_views.py checks the
catalog of a migrated database)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..paths import REPO_ROOT

MIGRATION_DIRS = sorted(REPO_ROOT.glob("services/*/engram_*/migrations"))
_COMMENT = re.compile(r"--[^\n]*")
_ADDS = re.compile(r"^\s*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:\w+\.)?(\w+)\b[^;]*?\bADD\s+COLUMN",
                   re.I | re.S)
_VIEW = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(?:\w+\.)?(live_\w+)", re.I)


def lagging(migrations: list[tuple[str, str]]) -> dict[str, str]:
    """Views re-created before the last migration that adds a column to
    their table: {view: that migration}. `migrations` in applied order."""
    made: dict[str, int] = {}
    last_add: dict[str, tuple[int, str]] = {}
    step = 0
    for name, sql in migrations:
        for statement in _COMMENT.sub("", sql).split(";"):
            step += 1
            if m := _VIEW.match(statement):
                made[m.group(1)] = step
            elif m := _ADDS.match(statement):
                last_add[m.group(1)] = (step, name)
    return {view: last_add[view.removeprefix("live_")][1] for view, at in made.items()
            if last_add.get(view.removeprefix("live_"), (0, ""))[0] > at}


def _read(directory: Path) -> list[tuple[str, str]]:
    return [(p.name, p.read_text()) for p in sorted(directory.glob("*.sql"))]


def test_there_are_live_views_to_check():
    views = {v for d in MIGRATION_DIRS for _, sql in _read(d)
             for v in re.findall(r"VIEW\s+(?:\w+\.)?(live_\w+)", sql)}
    assert {"live_entries", "live_facts", "live_edges", "live_lessons"} <= views


@pytest.mark.parametrize("directory", MIGRATION_DIRS, ids=lambda d: d.parent.name)
def test_no_live_view_misses_a_column_of_its_table(directory: Path):
    assert lagging(_read(directory)) == {}


def test_a_column_added_after_the_view_is_found():
    made = ("0001.sql", "CREATE TABLE entries (id uuid);\n"
            "CREATE VIEW live_entries AS SELECT * FROM entries;")
    added = ("0002.sql", "-- a new column; the view is not re-made\n"
             "ALTER TABLE entries\n    ADD COLUMN context_of uuid;")
    remade = ("0003.sql", "CREATE OR REPLACE VIEW live_entries AS SELECT * FROM entries;")
    assert lagging([made, added]) == {"live_entries": "0002.sql"}
    assert lagging([made, added, remade]) == {}
