"""Typed rows, the shape every service's repositories return: a frozen,
slotted dataclass per projection, built once in the repository from the
record its SELECT returned (callers read attributes, never column names),
and its SELECT list derived from its fields, so a column is declared once."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import fields
from typing import Any, Self

import asyncpg


class Row:
    """The base of a row dataclass (`@dataclass(frozen=True, slots=True)`)."""

    __slots__ = ()

    @classmethod
    def of(cls, record: asyncpg.Record | Mapping[str, Any]) -> Self:
        """The row of a record whose columns are exactly the fields (built
        by keyword: a missing or extra column is a TypeError)."""
        return cls(**record)

    @classmethod
    def all(cls, records: list[asyncpg.Record]) -> list[Self]:
        return [cls(**r) for r in records]


def select_list(row_type: type, expressions: Mapping[str, str] | None = None,
                table: str = "") -> str:
    """The SELECT (or RETURNING) list of a row type: its fields in order, a
    field that is an expression as `expressions` writes it (`... AS name`),
    the columns qualified by `table` where a statement names two (`o.id`)."""
    given = expressions or {}
    prefix = f"{table}." if table else ""
    return ", ".join(given.get(f.name, f"{prefix}{f.name}") for f in fields(row_type))


def columns_read(*row_types: type, expressions: Collection[str] = ()) -> frozenset[str]:
    """The table columns some row type reads: the fields of all of them, less
    those that are expressions, not columns (what the coverage tests compare
    with a table's columns)."""
    return frozenset(f.name for t in row_types for f in fields(t) if f.name not in expressions)
