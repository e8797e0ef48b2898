"""The cortex's typed rows (engram_cortex.rows): their fields are their
SELECT lists, and every column of `facts` (`world_facts`, `lessons`) is a
field of `FactRow` (`WorldFactRow`, `LessonRow`) or named as unread.
Checked here on the migration files; tests/integration/test_live_views.py
checks the migrated catalog."""

from __future__ import annotations

import dataclasses
import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from engram_cortex import (
    repo,
    repo_conflicts,
    repo_graph,
    repo_lessons,
    repo_review,
    repo_tags,
    repo_world,
    rows,
)
from engram_cortex.rows import (
    UNREAD_CONFLICT_COLUMNS,
    UNREAD_EDGE_COLUMNS,
    UNREAD_FACT_COLUMNS,
    UNREAD_LESSON_COLUMNS,
    UNREAD_RELATION_COLUMNS,
    UNREAD_SLOT_COLUMNS,
    UNREAD_TAG_COLUMNS,
    UNREAD_WORLD_COLUMNS,
    ConflictRow,
    ContenderRow,
    EdgeRow,
    EmbeddedLessonRow,
    FactRow,
    LessonRow,
    RankedFactRow,
    RankedLessonRow,
    RelationRow,
    SessionChangeRow,
    SlotRow,
    StrongLessonRow,
    TagRow,
    WorldFactRow,
    fact_fields,
    lesson_score_of,
    recorded_by_of,
    score_of,
    select_list,
)

from ..paths import REPO_ROOT
from .table_columns import assert_covered
from .table_columns import table_columns as migrated_columns

MIGRATIONS = REPO_ROOT / "services/cortex/engram_cortex/migrations"


def table_columns(table: str) -> set[str]:
    """The columns of a cortex table after every migration, read from the files."""
    return migrated_columns(MIGRATIONS, table)


def test_every_column_of_facts_is_a_field_or_named_unread():
    columns = table_columns("facts")
    # the parse works: columns of the CREATE, of a many-column ALTER, of later ALTERs
    assert {"id", "embedding", "meta", "norm_value", "retire_reason", "tags",
            "last_verified_at", "reopen_trigger"} <= columns
    assert_covered(columns, frozenset(fact_fields()), UNREAD_FACT_COLUMNS)


def test_every_column_of_world_facts_is_a_field_or_named_unread():
    columns = table_columns("world_facts")
    fields = {f.name for f in dataclasses.fields(WorldFactRow)}
    assert {"id", "embedding", "source_url", "retract_reason", "retracted_by"} <= columns
    assert_covered(columns, frozenset(fields), UNREAD_WORLD_COLUMNS)


def test_every_column_of_lessons_is_a_field_or_named_unread():
    columns = table_columns("lessons")
    fields = {f.name for f in dataclasses.fields(LessonRow)}
    # the parse works: columns of the CREATE and of later (many-column) ALTERs
    assert {"id", "embedding", "subject_fact_ids", "merged_into", "retire_reason",
            "retired_by"} <= columns
    assert_covered(columns, frozenset(fields), UNREAD_LESSON_COLUMNS)
    # the merge pass's row is the only one that reads the vector
    assert {f.name for f in dataclasses.fields(EmbeddedLessonRow)} == fields | {"embedding"}


def test_the_lesson_select_lists_are_the_fields():
    assert select_list(LessonRow) == repo_lessons.LESSON_COLUMNS
    assert repo_lessons.LESSON_COLUMNS.startswith("id, signature, polarity, text, ")
    assert "*" not in repo_lessons.LESSON_COLUMNS
    assert "embedding" not in repo_lessons.LESSON_COLUMNS
    strong = select_list(StrongLessonRow, "l", {"recorded_by": "x AS recorded_by"})
    assert strong.startswith("l.id, l.signature, ") and strong.endswith(", x AS recorded_by")


def _lesson(row_type: type) -> dict[str, object]:
    now = datetime.now(UTC)
    extra = {RankedLessonRow: {"score": 0.25}, StrongLessonRow: {"recorded_by": ["p"]},
             EmbeddedLessonRow: {"embedding": [0.1, 0.2]}}.get(row_type, {})
    return {"id": uuid.uuid4(), "signature": "t|failure|", "polarity": "avoid",
            "text": "Avoid: t (when: t)", "task": "t", "confidence": 0.7, "signals": 2,
            "subject_fact_ids": [uuid.uuid4()], "distilled_by": "rules", "created_at": now,
            "updated_at": now, "retired_at": None, "merged_into": None,
            "retire_reason": None, "retired_by": None} | extra


@pytest.mark.parametrize("row_type",
                         [LessonRow, RankedLessonRow, StrongLessonRow, EmbeddedLessonRow])
def test_a_lesson_row_is_built_from_its_record(row_type: type):
    record = _lesson(row_type)
    row = row_type.of(record)
    assert dataclasses.asdict(row) == record
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.text = "changed"
    with pytest.raises(TypeError):  # a full read never carries the vector
        LessonRow.of({**_lesson(LessonRow), "embedding": [0.1]})


def test_only_a_ranked_lesson_has_a_score_and_a_strong_one_its_recorders():
    assert lesson_score_of(RankedLessonRow.of(_lesson(RankedLessonRow))) == 0.25
    assert lesson_score_of(LessonRow.of(_lesson(LessonRow))) == 0.0
    assert recorded_by_of(StrongLessonRow.of(_lesson(StrongLessonRow))) == ["p"]
    assert recorded_by_of(RankedLessonRow.of(_lesson(RankedLessonRow))) == []


def test_the_select_lists_are_the_fields():
    assert select_list(FactRow) == repo.FACT_COLUMNS
    assert repo.FACT_COLUMNS.startswith("id, entity, attribute, value, ")
    assert "*" not in repo.FACT_COLUMNS and "embedding" not in repo.FACT_COLUMNS
    assert select_list(FactRow, "o").split(", ") == [
        f"o.{c}" for c in repo.FACT_COLUMNS.split(", ")]
    assert repo_review.CONTENDER_COLUMNS.startswith("p.id, p.entity, ")
    assert repo_review.CONTENDER_COLUMNS.rstrip().endswith("AS current_value")
    # the extras are fields of subclasses, never columns of `facts`
    assert fact_fields(RankedFactRow) == fact_fields(ContenderRow) == fact_fields()
    assert select_list(WorldFactRow) == repo_world.WORLD_COLUMNS
    assert "*" not in repo_world.WORLD_COLUMNS and "embedding" not in repo_world.WORLD_COLUMNS


def _record(row_type: type) -> dict[str, object]:
    now = datetime.now(UTC)
    values: dict[str, object] = {f.name: None for f in dataclasses.fields(row_type)}
    values |= {
        "id": uuid.uuid4(), "entity": "svc", "attribute": "owner", "value": "Ann",
        "norm_value": "ann", "kind": "STATE", "verdict": "active", "origin": "user",
        "confidence": 1.0, "evidence_quote": "", "source_type": "", "source_ref": "",
        "captured_by": "p", "writer_principal": "p", "valid_from": now, "recorded_at": now,
        "retire_reason": "", "set_member": False, "tags": ["a"],
        "expected_lifetime": timedelta(days=1)}
    if row_type is RankedFactRow:
        values["score"] = 0.5
    if row_type is ContenderRow:
        values["current_value"] = "Bob"
    return values


@pytest.mark.parametrize("row_type", [FactRow, RankedFactRow, ContenderRow])
def test_a_row_is_built_from_its_record_and_is_frozen_and_slotted(row_type: type):
    record = _record(row_type)
    row = row_type.of(record)
    assert dataclasses.asdict(row) == record
    assert not hasattr(row, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.value = "changed"


def test_a_record_with_another_column_is_refused():
    with pytest.raises(TypeError):
        FactRow.of({**_record(FactRow), "embedding": [0.1]})
    with pytest.raises(TypeError):
        FactRow.of({**_record(FactRow), "score": 0.3})  # a search's row is a RankedFactRow


def test_only_a_ranked_row_has_a_score():
    assert score_of(RankedFactRow.of(_record(RankedFactRow))) == 0.5
    assert score_of(FactRow.of(_record(FactRow))) == 0.0


def test_every_row_type_is_frozen_and_slotted():
    types = [t for t in vars(rows).values()
             if isinstance(t, type) and dataclasses.is_dataclass(t)]
    assert len(types) >= 10
    for t in types:
        assert t.__dataclass_params__.frozen, t  # type: ignore[attr-defined]
        assert "__slots__" in vars(t), t


def test_both_session_change_reads_select_the_row_fields():
    from engram_cortex import repo_session
    names = [f.name for f in dataclasses.fields(SessionChangeRow)]
    for columns in (repo_session._SUPERSEDED_COLUMNS, repo_session._CONTESTED_COLUMNS):
        assert columns.startswith("f.id, f.entity, f.attribute, f.value, ")
        labels = re.findall(r"AS (\w+)", columns)
        assert labels == names[4:], columns
    assert "NULL::uuid AS conflict_id" in repo_session._SUPERSEDED_COLUMNS
    row = SessionChangeRow.of({"id": uuid.uuid4(), "entity": "svc", "attribute": "owner",
                               "value": "Ann", "new_value": "Bob", "by": "p",
                               "change": "superseded", "conflict_id": None})
    assert row.conflict_id is None and row.by == "p"


def test_every_column_of_conflicts_is_a_field_or_named_unread():
    columns = table_columns("conflicts")
    fields = {f.name for f in dataclasses.fields(ConflictRow)}
    assert {"id", "namespace", "fact_a", "winner", "decided_at"} <= columns
    assert_covered(columns, frozenset(fields), UNREAD_CONFLICT_COLUMNS)
    assert select_list(ConflictRow) == repo_conflicts.CONFLICT_COLUMNS
    assert "*" not in repo_conflicts.CONFLICT_COLUMNS
    assert "namespace" not in repo_conflicts.CONFLICT_COLUMNS


def test_every_column_of_tags_is_a_field_or_named_unread():
    columns = table_columns("tags")
    fields = {f.name for f in dataclasses.fields(TagRow)}
    assert {"namespace", "name", "parent", "decided_at"} <= columns
    assert_covered(columns, frozenset(fields), UNREAD_TAG_COLUMNS)
    assert select_list(TagRow) == repo_tags.TAG_COLUMNS
    assert "*" not in repo_tags.TAG_COLUMNS and "namespace" not in repo_tags.TAG_COLUMNS


def test_every_column_of_edges_is_a_field_or_named_unread():
    columns = table_columns("edges")
    fields = {f.name for f in dataclasses.fields(EdgeRow)}
    assert {"namespace", "id", "src", "evidence_quote", "retired_at"} <= columns
    assert_covered(columns, frozenset(fields), UNREAD_EDGE_COLUMNS)
    assert select_list(EdgeRow) == repo_graph.EDGE_COLUMNS
    assert "*" not in repo_graph.EDGE_COLUMNS and "namespace" not in repo_graph.EDGE_COLUMNS


def test_every_column_of_slots_is_a_field_or_named_unread():
    columns = table_columns("slots")
    fields = {f.name for f in dataclasses.fields(SlotRow)}
    assert {"namespace", "entity", "attribute", "set_valued", "created_at"} <= columns
    assert_covered(columns, frozenset(fields), UNREAD_SLOT_COLUMNS)
    assert select_list(SlotRow) == repo.SLOT_COLUMNS
    assert "*" not in repo.SLOT_COLUMNS and "namespace" not in repo.SLOT_COLUMNS


def test_every_column_of_relations_is_a_field_or_named_unread():
    columns = table_columns("relations")
    fields = {f.name for f in dataclasses.fields(RelationRow)}
    assert {"namespace", "name", "inverse", "is_symmetric", "added_by"} <= columns
    assert_covered(columns, frozenset(fields), UNREAD_RELATION_COLUMNS)
    assert select_list(RelationRow) == repo_graph.RELATION_COLUMNS
    assert "*" not in repo_graph.RELATION_COLUMNS
