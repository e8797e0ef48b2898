"""What `engram import` checks before its transaction commits.

An export file is untrusted input: anyone can write one. Before a row is
loaded, every line is checked against the catalog of this stack: its table
and column keys must be real ones, its namespace a valid name the operator
named, its serial ids within what a sequence hands out in practice, and a
journal row's images must name real columns of the table they restore. After
the load (still inside the transaction) every foreign key of the loaded rows
must resolve within the row's own namespace, and every audit chain of the
imported namespaces must verify as `engram audit verify` checks it. Any
problem refuses the whole file, naming each problem by line or row; the
transaction is rolled back, so nothing changes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from engram_cli.audit.chains import AUDITED
from engram_kit import audit
from engram_kit.context import NAMESPACE_RE
from engram_kit.errors import InvalidArgument

# Serial ids are sequence numbers of the exporting bank. An import renumbers
# them, but one no bank reaches marks a crafted file: 2^53 - 1, the largest
# integer every JSON reader keeps exact.
MAX_SERIAL_ID = 2**53 - 1
MAX_REPORTED = 1000
NOT_JSON = object()


@dataclass(frozen=True)
class Problem:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


class ImportRefused(InvalidArgument):
    """The bank will not take this file; `problems` names what is wrong."""

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []

    def report(self) -> str:
        shown = [f"  {p}" for p in self.problems[:MAX_REPORTED]]
        if len(self.problems) > MAX_REPORTED:
            shown.append(f"  ... and {len(self.problems) - MAX_REPORTED} more")
        return "\n".join([self.message, *shown])


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    columns: tuple[str, ...]  # writable: generated columns are recomputed
    key: tuple[str, ...]  # primary key, in key order
    serial: dict[str, str] = field(default_factory=dict)  # column -> its sequence

    @property
    def qualified(self) -> str:
        return f"{ident(self.schema)}.{ident(self.name)}"

    @property
    def label(self) -> str:
        return f"{self.schema}.{self.name}"


async def catalog(conn: asyncpg.Connection, schemas: tuple[str, ...],
                  skip: set[str]) -> dict[tuple[str, str], Table]:
    """Every table with a namespace column in `schemas`, from the catalog."""
    rows = await conn.fetch(
        "SELECT n.nspname, c.relname, a.attname, a.attgenerated <> '' AS generated,"
        " pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) AS seq,"
        " array_position(pk.conkey, a.attnum) AS key_pos"
        " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
        " LEFT JOIN pg_constraint pk ON pk.conrelid = c.oid AND pk.contype = 'p'"
        " WHERE c.relkind = 'r' AND n.nspname = ANY($1::text[])"
        " ORDER BY n.nspname, c.relname, a.attnum", list(schemas))
    grouped: dict[tuple[str, str], list[asyncpg.Record]] = {}
    for r in rows:
        grouped.setdefault((r["nspname"], r["relname"]), []).append(r)
    out = {}
    for (schema, name), cols in grouped.items():
        if name in skip or "namespace" not in {c["attname"] for c in cols}:
            continue
        key = sorted((c for c in cols if c["key_pos"]), key=lambda c: c["key_pos"])
        out[(schema, name)] = Table(
            schema, name, tuple(c["attname"] for c in cols if not c["generated"]),
            tuple(c["attname"] for c in key),
            {c["attname"]: c["seq"] for c in cols if c["seq"]})
    return out


def read(path: Path, seen: Callable[[int, str], None] | None = None
         ) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON or NOT_JSON) for each non-blank line; `seen`
    gets every line as read (the seal's digest)."""
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if seen is not None:
                seen(n, line)
            if line.strip():
                try:
                    yield n, json.loads(line)
                except json.JSONDecodeError:
                    yield n, NOT_JSON


def valid_namespace(name: Any) -> bool:
    """The rule every service applies, whole-string (no trailing newline)."""
    return isinstance(name, str) and NAMESPACE_RE.fullmatch(name) is not None


def targets(header: dict[str, Any], named: list[str]) -> set[str]:
    """The namespaces this import writes: exactly those the operator named,
    which must be exactly those the file's header lists."""
    listed = header.get("namespaces")
    problems = [Problem("--namespace", f"{n!r:.80} is not a valid namespace name (1-63 chars "
                        "of a-z, 0-9, '_', '.', '-', starting with a letter or digit)")
                for n in named if not valid_namespace(n)]
    if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
        problems.append(Problem("line 1", "the header lists no namespaces"))
    elif not named:
        problems.append(Problem("--namespace", "name each namespace to import with --namespace"
                                f" (this file holds: {', '.join(map(repr, listed))})"))
    elif set(listed) != set(named):
        problems.append(Problem("line 1", f"the file holds namespaces "
                                f"{', '.join(map(repr, sorted(listed)))}, not the namespaces "
                                f"named ({', '.join(map(repr, sorted(named)))})"))
    if problems:
        raise ImportRefused("the namespaces are wrong", problems)
    return set(named)


class RowCheck:
    """Checks one line at a time and keeps every problem it finds."""

    def __init__(self, tables: dict[tuple[str, str], Table], namespaces: set[str]) -> None:
        self.tables = tables
        self.namespaces = namespaces
        self.problems: list[Problem] = []

    def line(self, n: int, item: Any) -> None:
        if item is NOT_JSON:
            self.problems.append(Problem(f"line {n}", "not JSON"))
            return
        if not isinstance(item, dict) or not isinstance(item.get("row"), dict):
            self.problems.append(Problem(f"line {n}", "not a {schema, table, row} object"))
            return
        schema, name = item.get("schema"), item.get("table")
        table = self.tables.get((schema, name)) if isinstance(schema, str) and isinstance(
            name, str) else None
        if table is None:
            self.problems.append(Problem(
                f"line {n}", f"unknown table {item.get('schema')!r:.40}.{item.get('table')!r:.40}"))
            return
        row, where = item["row"], f"line {n} {table.label}"
        for key in sorted(set(row) - set(table.columns)):
            self.problems.append(Problem(where, f"unknown column {key!r:.80}"))
        if not isinstance(row.get("namespace"), str) or row["namespace"] not in self.namespaces:
            self.problems.append(Problem(where, f"a row of namespace {row.get('namespace')!r:.80}"
                                                ", which this import does not target"))
        for column in table.serial:
            value = row.get(column)
            if type(value) is not int or not 1 <= value <= MAX_SERIAL_ID:
                self.problems.append(Problem(where, f"{column} {value!r:.40} is not a serial id "
                                                    f"(an integer from 1 to {MAX_SERIAL_ID})"))
        if (table.schema, table.name) == ("cortex", "journal"):
            self._journal(where, row)

    def _journal(self, where: str, row: dict[str, Any]) -> None:
        """A revert restores these images into `tbl`: each must be an object of
        that table's real columns, of this row's namespace, under its key."""
        tbl = row.get("tbl")
        target = self.tables.get(("cortex", tbl)) if isinstance(tbl, str) else None
        if target is None:
            self.problems.append(Problem(where, f"tbl {row.get('tbl')!r:.40} is not a table"))
            return
        key = [k for k in target.key if k != "namespace"]
        row_key = row.get("row_key")
        if (not isinstance(row_key, list) or len(row_key) != len(key)
                or not all(isinstance(v, str) for v in row_key)):
            self.problems.append(Problem(where, f"row_key is not {target.name}'s key "
                                                f"({', '.join(key)})"))
        images = {"post_image": row.get("post_image")}
        if row.get("op") != "insert" or row.get("pre_image") is not None:
            images["pre_image"] = row.get("pre_image")
        for name, image in images.items():
            if not isinstance(image, dict):
                self.problems.append(Problem(where, f"{name} is not an object"))
                continue
            for col in sorted(set(image) - set(target.columns)):
                self.problems.append(Problem(where, f"{name} names a column {target.name} does "
                                                    f"not have: {col!r:.80}"))
            if image.get("namespace") != row.get("namespace"):
                self.problems.append(Problem(where, f"{name} is of another namespace"))


async def foreign_keys(conn: asyncpg.Connection, tables: dict[tuple[str, str], Table],
                       namespaces: set[str]) -> list[Problem]:
    """Each reference of a loaded row must resolve to a row of its own
    namespace (the load ran with triggers, and so FK checks, off)."""
    fks = await conn.fetch(
        "SELECT cn.nspname AS schema, c.relname AS tbl, pn.nspname AS fschema,"
        " p.relname AS ftbl,"
        " ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, i)"
        "       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num"
        "       ORDER BY k.i) AS cols,"
        " ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, i)"
        "       JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num"
        "       ORDER BY k.i) AS fcols"
        " FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid"
        " JOIN pg_namespace cn ON cn.oid = c.relnamespace"
        " JOIN pg_class p ON p.oid = con.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace"
        " WHERE con.contype = 'f' ORDER BY 1, 2, con.conname")
    problems = []
    for fk in fks:
        child, parent = tables.get((fk["schema"], fk["tbl"])), tables.get((fk["fschema"],
                                                                          fk["ftbl"]))
        if child is None or parent is None:
            continue
        problems += await _dangling(conn, child, parent, list(fk["cols"]), list(fk["fcols"]),
                                    namespaces)
    return problems


async def _dangling(conn: asyncpg.Connection, child: Table, parent: Table, cols: list[str],
                    fcols: list[str], namespaces: set[str]) -> list[Problem]:
    shown = [k for k in child.key if k != "namespace"] or cols
    present = " AND ".join(f"c.{ident(c)} IS NOT NULL" for c in cols)
    match = " AND ".join(f"p.{ident(f)} = c.{ident(c)}" for c, f in zip(cols, fcols, strict=True))
    rows = await conn.fetch(
        f"SELECT c.namespace, json_build_array({', '.join(f'c.{ident(k)}' for k in shown)})"
        f" AS key, json_build_array({', '.join(f'c.{ident(c)}' for c in cols)}) AS ref"
        f" FROM {child.qualified} c WHERE c.namespace = ANY($1::text[]) AND {present}"
        f" AND NOT EXISTS (SELECT 1 FROM {parent.qualified} p WHERE {match}"
        f" AND p.namespace = c.namespace)", sorted(namespaces))
    out = []
    for r in rows:
        key = ", ".join(f"{k}={v}" for k, v in zip(shown, json.loads(r["key"]), strict=True))
        ref = ", ".join(f"{c} = {v}" for c, v in zip(cols, json.loads(r["ref"]), strict=True))
        out.append(Problem(f"{child.label} ({key})", f"{ref} refers to no {parent.label} row "
                                                     f"of namespace {r['namespace']}"))
    return out


Origins = Callable[[str, str, list[int]], Awaitable[dict[int, tuple[int, int]]]]


async def audit_chains(conn: asyncpg.Connection, tables: dict[tuple[str, str], Table],
                       namespaces: set[str], origins: Origins) -> list[Problem]:
    """The imported namespaces' chains, verified as `engram audit verify` does
    (which also refuses a row without a hash after a chain began). `origins`
    maps the renumbered ids back to the file's ids and lines."""
    found: list[tuple[str, str, int, str]] = []
    for schema, extra in AUDITED.items():
        if (schema, "audit") not in tables:
            continue
        _, problems = await audit.verify(conn, schema, extra)
        found += [(schema, p.namespace, p.row_id, p.what) for p in problems
                  if p.namespace in namespaces]
    out = []
    for schema, ns, row_id, what in found:
        old, line = (await origins(f"{schema}.audit", "id", [row_id])).get(row_id, (row_id, 0))
        out.append(Problem(f"line {line} {schema}.audit namespace {ns} row {old}", what))
    return out
