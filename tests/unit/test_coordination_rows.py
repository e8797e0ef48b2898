"""Coordination's typed rows (engram_coordination.rows): every column of
`leases`, `agents` and `messages` is a field of a row type or named as
unread, checked on the migration files; the SELECT lists are the fields."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from engram_coordination import repo, repo_leases, repo_mail, rows
from engram_coordination.rows import (
    UNREAD_AGENT_COLUMNS,
    UNREAD_LEASE_COLUMNS,
    UNREAD_MESSAGE_COLUMNS,
    AgentRow,
    LeaseAt,
    LeaseRow,
    agent_fields,
    lease_fields,
    message_fields,
)

from ..paths import REPO_ROOT
from .table_columns import assert_covered, table_columns

MIGRATIONS = REPO_ROOT / "services/coordination/engram_coordination/migrations"


def test_every_column_of_leases_is_a_field_or_named_unread():
    columns = table_columns(MIGRATIONS, "leases")
    assert {"name", "holder", "last_token", "offered_to"} <= columns  # the parse works
    assert_covered(columns, lease_fields(), UNREAD_LEASE_COLUMNS)


def test_every_column_of_agents_is_a_field_or_named_unread():
    columns = table_columns(MIGRATIONS, "agents")
    assert {"id", "principal", "children", "park_set_at"} <= columns  # the parse works
    assert_covered(columns, agent_fields(), UNREAD_AGENT_COLUMNS)


def test_the_agent_select_list_is_its_fields():
    assert repo.AGENT_COLUMNS.startswith("id, principal, project, task, status, ")
    assert "*" not in repo.AGENT_COLUMNS


def test_an_agent_row_decodes_its_children():
    now = datetime.now(UTC)
    row = AgentRow("a1", "p", "", "", "", now, now, None,
                   '[{"label": "x", "since": "2026-01-01T00:00:00+00:00"}]',
                   None, "", "", "", None, None)
    assert row.child_list() == [{"label": "x", "since": "2026-01-01T00:00:00+00:00"}]
    assert dataclasses.replace(row, children="[]").child_list() == []


def test_every_column_of_messages_is_a_field_or_named_unread():
    columns = table_columns(MIGRATIONS, "messages")
    assert {"id", "batch_id", "body", "redacted_by"} <= columns  # the parse works
    assert_covered(columns, message_fields(), UNREAD_MESSAGE_COLUMNS)


def test_the_inbox_select_list_is_its_fields():
    assert repo_mail.INBOX_COLUMNS == ("id, sender, sender_principal, addressed_to,"
                                       " request_id, kind, body, sent_at")


def test_a_renamed_column_is_read_under_its_new_name():
    columns = table_columns(MIGRATIONS, "messages")
    assert "body_hmac" in columns and "body_sha256" not in columns


def test_the_select_lists_are_the_fields():
    assert repo_leases.LEASE_COLUMNS == ("name, holder, last_token, granted_at, expires_at,"
                                         " free_since, offered_to")
    assert repo_leases.AT_COLUMNS == repo_leases.LEASE_COLUMNS + ", now() AS now"


def test_a_lease_row_is_built_from_its_record_and_is_frozen():
    now = datetime.now(UTC)
    record = {"name": "db", "holder": "a1", "last_token": 3, "granted_at": now,
              "expires_at": now, "free_since": None, "offered_to": None, "now": now}
    row = LeaseAt.of(record)
    assert dataclasses.asdict(row) == record and isinstance(row, LeaseRow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.holder = "b"  # type: ignore[misc]
    with pytest.raises(TypeError):
        LeaseRow.of(record)  # a column the row does not carry


def test_every_row_type_is_frozen_and_slotted():
    types = [t for t in vars(rows).values()
             if isinstance(t, type) and dataclasses.is_dataclass(t)]
    assert len(types) >= 6
    for t in types:
        assert t.__dataclass_params__.frozen, t  # type: ignore[attr-defined]
        assert "__slots__" in vars(t), t
