"""The dreamer's typed rows (engram_dreamer.rows): every column of
`proposals` and `runs` is a field of `Proposal` / `RunRow` or named as
unread, checked on the migration files; the SELECT lists are the fields."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime

from engram_dreamer import repo_passes, repo_proposals, rows
from engram_dreamer.rows import (
    UNREAD_PROPOSAL_COLUMNS,
    UNREAD_RUN_COLUMNS,
    RunRow,
    proposal_fields,
    run_fields,
)

from ..paths import REPO_ROOT
from .table_columns import assert_covered, table_columns

MIGRATIONS = REPO_ROOT / "services/dreamer/engram_dreamer/migrations"


def test_every_column_of_proposals_is_a_field_or_named_unread():
    columns = table_columns(MIGRATIONS, "proposals")
    assert {"id", "signature", "entity", "entry_ids"} <= columns  # the parse works
    assert_covered(columns, proposal_fields(), UNREAD_PROPOSAL_COLUMNS)


def test_the_select_list_is_the_fields():
    assert repo_proposals.PROPOSAL_COLUMNS.startswith("id, kind, status, src, relation, dst, ")
    assert "*" not in repo_proposals.PROPOSAL_COLUMNS


def test_every_column_of_runs_is_a_field_or_named_unread():
    columns = table_columns(MIGRATIONS, "runs")
    assert {"id", "counts", "inputs", "proposals"} <= columns  # the parse works, ADD too
    assert_covered(columns, run_fields(), UNREAD_RUN_COLUMNS)


def test_the_run_select_list_is_its_fields():
    assert repo_passes.RUN_COLUMNS.startswith("id, trigger, extractor, model, status, ")
    assert "*" not in repo_passes.RUN_COLUMNS and "inputs" not in repo_passes.RUN_COLUMNS


def test_a_run_row_decodes_its_counts():
    now = datetime.now(UTC)
    row = RunRow(uuid.uuid4(), "manual", "rules", "", "committed", now, now,
                 1, 1, 1, 0, 0, 0, '{"archived": 2}', "", 0)
    assert row.count_map() == {"archived": 2}
    assert dataclasses.replace(row, counts="").count_map() == {}


def test_every_row_type_is_frozen_and_slotted():
    types = [t for t in vars(rows).values()
             if isinstance(t, type) and dataclasses.is_dataclass(t)]
    assert len(types) >= 2
    for t in types:
        assert t.__dataclass_params__.frozen, t  # type: ignore[attr-defined]
        assert "__slots__" in vars(t), t
