"""Near-duplicates and entity merges. The dreamer asks which entities look
like one thing under two names, and which facts of an entity say one thing
under two attribute names (same value, similar attributes), and proposes
merging them. A reviewer's approved entity merge runs here: facts, slots,
tombstones and live edges move to the kept name, equal live values are
retired as duplicates, and the merged name becomes an alias. A slot where
the two disagree must be settled first. (An approved fact merge is a
retraction of the duplicate, through `fact_retract`.)"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from dataclasses import dataclass
from difflib import SequenceMatcher

import asyncpg

from engram_kit import idempotency
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from engram_kit.idempotency import Keyed
from engram_kit.vocab import REVIEWER_ROLES, Role

from . import repo, repo_merge
from .normalise import entity_name
from .rows import EntityProfileRow, MergeFactRow

MAX_ENTITIES_COMPARED = 20000
MAX_ASKED = 200
NAME_RATIO = 0.8  # similar names must also share an attribute's value
COMMON_PAIR = 50
FILLER = frozenset({"by", "of", "the", "is", "a", "an", "for", "to", "in"})


@dataclass(frozen=True)
class Pair:
    keep: str
    merge: str
    similarity: float
    keep_facts: int
    merge_facts: int
    reason: str


@dataclass(frozen=True)
class FactPair:
    entity: str
    keep_attribute: str
    merge_attribute: str
    value: str
    reason: str


@dataclass(frozen=True)
class Found:
    entities: list[Pair]
    facts: list[FactPair]


@dataclass(frozen=True)
class Merged:
    into: str
    facts_moved: int
    facts_retired: int
    edges_moved: int


def squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _pair(a: EntityProfileRow, b: EntityProfileRow) -> Pair | None:
    ratio = SequenceMatcher(None, a.entity, b.entity).ratio()
    if squash(a.entity) == squash(b.entity):
        reason = "the same name apart from case and punctuation"
    else:
        shared = sorted(set(a.pairs) & set(b.pairs))
        if ratio < NAME_RATIO or not shared:
            return None
        reason = f"similar names with the same {shared[0].split('=', 1)[0]}"
    keep, merge = sorted((a, b), key=lambda r: (-r.facts, len(r.entity), r.entity))
    return Pair(keep.entity, merge.entity, round(ratio, 3), keep.facts,
                merge.facts, reason)


def _attribute_stems(name: str) -> frozenset[str]:
    return frozenset(t[:4] for t in re.split(r"[._:/]+", name) if t and t not in FILLER)


def _same_attribute(a: str, b: str) -> bool:
    """`owner`/`owned_by`, `host`/`hostname`: the same words once cut to
    four letters and stripped of filler; `region`/`backup_region` differ."""
    return _attribute_stems(a) == _attribute_stems(b)


def duplicate_facts(live: list[MergeFactRow]) -> list[FactPair]:
    """Live facts of one entity with the same (non-numeric, 3+ character)
    value under similar attribute names; the earlier-recorded one stays."""
    groups: dict[tuple[str, str], list[MergeFactRow]] = {}
    for r in live:
        if len(r.norm_value) >= 3 and not re.fullmatch(r"[\d.:\s-]+", r.norm_value):
            groups.setdefault((r.entity, r.norm_value), []).append(r)
    out = []
    for rows in groups.values():  # live_of orders by recorded_at
        for i, keep in enumerate(rows):
            out += [FactPair(keep.entity, keep.attribute, other.attribute,
                             keep.value, f"the same value under {keep.attribute} and "
                             f"{other.attribute}")
                    for other in rows[i + 1:] if other.attribute != keep.attribute
                    and _same_attribute(keep.attribute, other.attribute)]
    return out


def entity_pairs(profiles: list[EntityProfileRow], asked: set[str]) -> list[Pair]:
    """Only plausible partners are compared: the same squashed name, or a
    shared attribute=value pair (one held by more than COMMON_PAIR entities,
    like status=active, says nothing about identity)."""
    by_squash: dict[str, list[EntityProfileRow]] = defaultdict(list)
    by_pair: dict[str, list[EntityProfileRow]] = defaultdict(list)
    for p in profiles:
        by_squash[squash(p.entity)].append(p)
        for kv in set(p.pairs):
            by_pair[kv].append(p)
    found: dict[frozenset[str], Pair] = {}
    for a in (p for p in profiles if p.entity in asked):
        partners = list(by_squash[squash(a.entity)])
        for kv in set(a.pairs):
            if len(by_pair[kv]) <= COMMON_PAIR:
                partners += by_pair[kv]
        for b in partners:
            key = frozenset((a.entity, b.entity))
            if len(key) == 2 and key not in found and (pair := _pair(a, b)):
                found[key] = pair
    return list(found.values())


class Merging:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def near_duplicates(self, ctx: CallerContext, names: list[str]) -> Found:
        """Entity pairs among the entities with live facts (one side in
        `names`), and duplicate facts of the entities in `names`."""
        ns = ctx.require_namespace()
        if len(names) > MAX_ASKED:
            raise InvalidArgument(f"at most {MAX_ASKED} entities per call", field="entities")
        asked = {entity_name(n) for n in names if n.strip()}
        async with tenant_tx(self._pool, ns) as conn:
            asked = {await repo.resolve_entity(conn, n) for n in asked}
            profiles = await repo_merge.entity_profiles(conn, MAX_ENTITIES_COMPARED)
            live = await repo_merge.live_of(conn, sorted(asked))
        return Found(entity_pairs(profiles, asked), duplicate_facts(live))

    async def merge(self, ctx: CallerContext, merge: str, into: str,
                    reasoning: str) -> Merged:
        ns = ctx.require_namespace()
        if ctx.role not in REVIEWER_ROLES:
            raise PermissionDenied("merging entities needs the reviewer role; you are "
                                   f"{ctx.role or Role.AGENT}")
        merge, into = entity_name(merge, "merge"), entity_name(into, "into")
        if merge == into:
            raise InvalidArgument("merge and into must differ", field="merge")
        keyed = Keyed.of("MergeEntities", ctx.idempotency_key, merge, into, reasoning)
        async with tenant_tx(self._pool, ns) as conn:
            if (earlier := await idempotency.replay(conn, keyed)) is not None:
                return Merged(**earlier)
            for name in sorted((merge, into)):  # one lock order: no deadlock
                await repo.advisory_lock(conn, f"entity/{ns}/{name}")
            into = await repo.resolve_entity(conn, into)
            if await repo.resolve_entity(conn, merge) != merge:
                raise Conflict(f"{merge!r} is already an alias")
            if into == merge:
                raise Conflict(f"{into!r} is an alias of {merge!r}: they are one entity")
            live = await repo_merge.live_of(conn, [merge, into])
            if not any(r.entity == merge for r in live):
                raise NotFound(f"{merge!r} has no live facts to merge")
            duplicates = self._check_slots(merge, into, live)
            for old, kept in duplicates:
                await repo.supersede(conn, old, kept, f"duplicate: {merge} merged into {into}")
            moved = await repo_merge.rekey_facts(conn, merge, into)
            await repo_merge.rekey_slot_rows(conn, ns, merge, into)
            edges = await repo_merge.rekey_edges(conn, merge, into)
            await repo_merge.become_alias(conn, ns, merge, into, ctx.principal)
            await repo.audit(conn, ns, ctx.principal, "entity.merge", merge,
                             {"into": into, "facts_moved": moved, "edges_moved": edges,
                              "duplicates_retired": len(duplicates), "reasoning": reasoning})
            done = Merged(into, moved, len(duplicates), edges)
            await idempotency.remember(conn, ns, keyed, dataclasses.asdict(done))
        return done

    @staticmethod
    def _check_slots(merge: str, into: str, live: list[MergeFactRow]) -> list[tuple]:
        """(duplicate, kept) fact ids for equal live values; a disagreement
        refuses the merge, naming the slots."""
        by_slot: dict[str, dict[str, list[MergeFactRow]]] = {}
        for r in live:
            by_slot.setdefault(r.attribute, {}).setdefault(r.entity, []).append(r)
        clashes, duplicates = [], []
        for attribute, sides in by_slot.items():
            if len(sides) < 2:
                continue
            mine = {r.norm_value: r for r in sides[merge]}
            theirs = {r.norm_value: r for r in sides[into]}
            if set(mine) != set(theirs):
                values = {side: "; ".join(r.value for r in sides[side])
                          for side in (merge, into)}
                clashes.append(f"{attribute} ({merge}: {values[merge]} / {into}: "
                               f"{values[into]})")
            else:
                duplicates += [(mine[v].id, theirs[v].id) for v in mine]
        if clashes:
            raise Conflict(f"merging {merge} into {into} needs these slots settled first: "
                           + ", ".join(clashes[:10]))
        return duplicates
