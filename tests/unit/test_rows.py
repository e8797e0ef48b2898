"""Memory's typed rows (engram_memory.rows): their fields are their SELECT
lists, and every column of `entries` is a field of a row or named as
unread. Checked here on the migration files;
tests/integration/test_live_views.py checks the migrated catalog."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime

import pytest

from engram_memory import repo, repo_sessions, rows, rows_documents, rows_episodes
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
from .table_columns import assert_covered, table_columns

MIGRATIONS = REPO_ROOT / "services/memory/engram_memory/migrations"


def entries_columns() -> set[str]:
    """The columns of `entries` after every migration, read from the files."""
    return table_columns(MIGRATIONS, "entries")


def test_every_column_of_entries_is_a_field_or_named_unread():
    columns = entries_columns()
    assert {"id", "text", "embedding", "context_of", "tsv"} <= columns  # the parse works
    assert UNREAD_ENTRY_COLUMNS.isdisjoint(entry_fields())
    assert columns == entry_fields() | UNREAD_ENTRY_COLUMNS, (
        f"not a field, not named unread: {sorted(columns - entry_fields() - UNREAD_ENTRY_COLUMNS)}"
        f"; no such column: {sorted((entry_fields() | UNREAD_ENTRY_COLUMNS) - columns)}")


def test_every_column_of_episodes_is_a_field_or_named_unread():
    columns = table_columns(MIGRATIONS, "episodes")
    assert {"id", "summary", "auto_title", "last_active_at"} <= columns  # the parse works
    assert_covered(columns, rows_episodes.episode_fields(),
                   rows_episodes.UNREAD_EPISODE_COLUMNS)


def test_every_column_of_documents_is_a_field_or_named_unread():
    columns = table_columns(MIGRATIONS, "documents")
    assert {"id", "content", "original"} <= columns  # the parse works
    assert_covered(columns, rows_documents.document_fields(),
                   rows_documents.UNREAD_DOCUMENT_COLUMNS)


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
    assert repo_sessions.EPISODE_COLS == ("id, parent_id, title, summary, session_id,"
                                          " started_at, ended_at, auto_title")
    assert rows_episodes.recap_select().startswith(
        "id, title, parent_id, started_at, ended_at, started_by, (SELECT count(*) ")


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


ROW_MODULES = (rows, rows_episodes, rows_documents)


@pytest.mark.parametrize("module", ROW_MODULES, ids=lambda m: m.__name__)
def test_every_row_type_is_frozen_and_slotted(module):
    types = [t for t in vars(module).values()
             if isinstance(t, type) and dataclasses.is_dataclass(t)]
    assert len(types) >= 4
    for t in types:
        assert t.__dataclass_params__.frozen, t  # type: ignore[attr-defined]
        assert "__slots__" in vars(t), t
