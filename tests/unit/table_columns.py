"""A table's columns after every migration of a service, read from its
migration files: what the typed-row tests compare a row type's fields
with (CREATE TABLE, then ALTER TABLE ... ADD/DROP COLUMN in file order)."""

from __future__ import annotations

import re
from pathlib import Path

_COMMENT = re.compile(r"--[^\n]*")
_COLUMN_CHANGE = re.compile(r"\b(ADD|DROP)\s+COLUMN\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(\w+)",
                            re.I)
_RENAME = re.compile(r"\bRENAME\s+COLUMN\s+(\w+)\s+TO\s+(\w+)", re.I)
_NOT_A_COLUMN = {"check", "constraint", "primary", "unique", "foreign", "exclude"}


def table_columns(migrations: Path, table: str) -> set[str]:
    create = re.compile(rf"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?{table}\s*\((.*)\)\s*$",
                        re.I | re.S)
    alter = re.compile(rf"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?{table}\s", re.I)
    columns: set[str] = set()
    for path in sorted(migrations.glob("*.sql")):
        for statement in _COMMENT.sub("", path.read_text()).split(";"):
            if m := create.search(statement):
                for line in m.group(1).split("\n"):
                    word = re.match(r"\s*(\w+)\s+\w", line)
                    if word and word.group(1).lower() not in _NOT_A_COLUMN:
                        columns.add(word.group(1).lower())
            if not alter.search(statement):
                continue
            for action, name in _COLUMN_CHANGE.findall(statement):
                (columns.add if action.upper() == "ADD" else columns.discard)(name.lower())
            for old, new in _RENAME.findall(statement):
                columns.discard(old.lower())
                columns.add(new.lower())
    return columns


def assert_covered(columns: set[str], read: frozenset[str], unread: frozenset[str]) -> None:
    """Every column is read by a row type or named unread; nothing else is named."""
    assert unread.isdisjoint(read), sorted(unread & read)
    assert columns == read | unread, (
        f"not a field, not named unread: {sorted(columns - read - unread)}"
        f"; no such column: {sorted((read | unread) - columns)}")
