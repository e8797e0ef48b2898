"""Memory's typed rows (engram_memory.rows): their fields are their SELECT
lists, and every column of `entries` is a field of a row or named as
unread. Checked here on the migration files;
tests/integration/test_live_views.py checks the migrated catalog."""

from __future__ import annotations

import dataclasses
import re
import uuid
from datetime import UTC, datetime

import pytest

from engram_memory import repo, rows
from engram_memory.rows import (
    EXPRESSIONS,
    UNREAD_ENTRY_COLUMNS,
    EntryRow,
    FullEntryRow,
    ServedEntryRow,
    entry_fields,
    select_list,
)

from ..paths import REPO_ROOT

MIGRATIONS = REPO_ROOT / "services/memory/engram_memory/migrations"
_COMMENT = re.compile(r"--[^\n]*")
_CREATE = re.compile(r"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?entries\s*\((.*)\)\s*$",
                     re.I | re.S)
_ALTER = re.compile(r"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?entries\s+(ADD|DROP)\s+COLUMN\s+"
                    r"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(\w+)", re.I)
_NOT_A_COLUMN = {"check", "constraint", "primary", "unique", "foreign", "exclude"}


def entries_columns() -> set[str]:
    """The columns of `entries` after every migration, read from the files."""
    columns: set[str] = set()
    for path in sorted(MIGRATIONS.glob("*.sql")):
        for statement in _COMMENT.sub("", path.read_text()).split(";"):
            if m := _CREATE.search(statement):
                for line in m.group(1).split("\n"):
                    word = re.match(r"\s*(\w+)\s+\w", line)
                    if word and word.group(1).lower() not in _NOT_A_COLUMN:
                        columns.add(word.group(1).lower())
            for action, name in _ALTER.findall(statement):
                (columns.add if action.upper() == "ADD" else columns.discard)(name.lower())
    return columns


def test_every_column_of_entries_is_a_field_or_named_unread():
    columns = entries_columns()
    assert {"id", "text", "embedding", "context_of", "tsv"} <= columns  # the parse works
    assert UNREAD_ENTRY_COLUMNS.isdisjoint(entry_fields())
    assert columns == entry_fields() | UNREAD_ENTRY_COLUMNS, (
        f"not a field, not named unread: {sorted(columns - entry_fields() - UNREAD_ENTRY_COLUMNS)}"
        f"; no such column: {sorted((entry_fields() | UNREAD_ENTRY_COLUMNS) - columns)}")


def test_the_select_lists_are_the_fields():
    assert select_list(EntryRow) == repo.ENTRY_COLUMNS
    assert repo.ENTRY_COLUMNS.startswith("id, text, ")
    assert "(embedding IS NOT NULL) AS embedded" in repo.ENTRY_COLUMNS
    assert repo.FULL_COLUMNS.split(", ")[: len(repo.ENTRY_COLUMNS.split(", "))] \
        == repo.ENTRY_COLUMNS.split(", ")
    # each row type extends the one before it
    assert set(entry_fields(EntryRow)) < set(entry_fields(ServedEntryRow)) \
        < set(entry_fields(FullEntryRow))
    assert set(EXPRESSIONS) <= {f.name for f in dataclasses.fields(EntryRow)}


def _record(row_type: type) -> dict[str, object]:
    now = datetime.now(UTC)
    values: dict[str, object] = {
        "id": uuid.uuid4(), "text": "t", "source": "", "tags": ["a"], "origin": "agent",
        "episode": None, "status": "live", "created_at": now, "valid_from": now,
        "writer_principal": "p", "embedded": True, "superseded_by": None, "retired_at": None,
        "confirmations": 2, "supersedes": None, "last_reinforced_at": None, "client_id": "",
        "session_id": ""}
    return {f.name: values[f.name] for f in dataclasses.fields(row_type)}


@pytest.mark.parametrize("row_type", [EntryRow, ServedEntryRow, FullEntryRow])
def test_a_row_is_built_from_its_record_and_is_frozen_and_slotted(row_type: type):
    record = _record(row_type)
    row = row_type.of(record)
    assert dataclasses.asdict(row) == record
    assert not hasattr(row, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.text = "changed"


def test_a_record_with_another_column_is_refused():
    with pytest.raises(TypeError):
        EntryRow.of({**_record(EntryRow), "embedding": [0.1]})


def test_every_row_type_is_frozen_and_slotted():
    types = [t for t in vars(rows).values()
             if isinstance(t, type) and dataclasses.is_dataclass(t)]
    assert len(types) >= 8
    for t in types:
        assert t.__dataclass_params__.frozen, t  # type: ignore[attr-defined]
        assert "__slots__" in vars(t), t
