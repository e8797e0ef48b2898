"""The relation vocabulary: closed, extensible by a reviewer per namespace."""

from __future__ import annotations

import re
from dataclasses import dataclass

import asyncpg

from engram_kit.errors import InvalidArgument

from . import repo_graph


@dataclass(frozen=True)
class Relation:
    name: str
    inverse: str
    transitive: bool = False
    symmetric: bool = False


BASE = (
    Relation("depends_on", "dependency_of", transitive=True),
    Relation("part_of", "has_part", transitive=True),
    Relation("located_in", "contains", transitive=True),
    Relation("owned_by", "owns"),
    Relation("maintained_by", "maintains"),
    Relation("uses", "used_by"),
    Relation("deployed_to", "hosts"),
    Relation("member_of", "has_member"),
    Relation("reports_to", "manages"),
    Relation("works_on", "worked_on_by"),
    Relation("replaces", "replaced_by"),
    Relation("caused", "caused_by"),
    Relation("documented_in", "documents"),
    Relation("related_to", "related_to", symmetric=True),
)
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{1,39}\Z")


class Vocabulary:
    def __init__(self, relations: list[Relation]) -> None:
        self.by_name = {r.name: r for r in relations}
        self.inverse_of = {r.inverse: r for r in relations if not r.symmetric}

    @classmethod
    async def load(cls, conn: asyncpg.Connection) -> Vocabulary:
        custom = [Relation(r.name, r.inverse, r.transitive, r.is_symmetric)
                  for r in await repo_graph.custom_relations(conn)]
        return cls([*BASE, *custom])

    def canonical(self, relation: str, src: str, dst: str) -> tuple[str, Relation, str]:
        """(src, relation, dst) in stored direction: an inverse name flips the
        edge, a symmetric relation orders its ends."""
        name = relation.strip().lower().replace(" ", "_").replace("-", "_")
        if name in self.by_name:
            rel = self.by_name[name]
            if rel.symmetric and dst < src:
                src, dst = dst, src
            return src, rel, dst
        if name in self.inverse_of:
            return dst, self.inverse_of[name], src
        known = sorted(self.by_name)
        raise InvalidArgument(f"unknown relation {relation!r}; known: {', '.join(known)} "
                              "(and their inverses); a reviewer can add one with "
                              "relation_add", field="relation")

    def all(self) -> list[Relation]:
        return sorted(self.by_name.values(), key=lambda r: r.name)
