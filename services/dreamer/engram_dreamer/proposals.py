"""Proposals: changes a pass suggests but a reviewer decides.
- graph links, when a fact's value names another entity the cortex knows
  (e.g. "billing-api uses postgres" and postgres has facts of its own);
- entity merges, when the cortex finds two names for one thing (the same
  name but for punctuation, or similar names with the same attribute value);
  approval makes the merged name an alias and moves its facts;
- entry merges, when memory finds live entries that say the same thing;
  approval consolidates them into one new entry with the text of `src`.
A rejected proposal is kept as a tombstone so it is never proposed again; an
open one expires after 30 days."""

from __future__ import annotations

import dataclasses
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg

from engram.v1 import cortex_pb2, memory_pb2
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import (
    Conflict,
    DeadlineExceeded,
    DomainError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unavailable,
)
from engram_kit.vocab import REVIEWER_ROLES, ProposalStatus, Role

from . import repo_proposals as repo
from .backends import Backends
from .extractor import Candidate
from .rows import Proposal

KINDS = ("graph_link", "merge_entity", "merge_fact", "merge_entries")
RELATION_OF = {"uses": "uses", "consumes_from": "uses", "caches": "uses",
               "runs_on": "deployed_to", "hosted_on": "deployed_to",
               "deployed_to": "deployed_to", "owner": "owned_by", "owned_by": "owned_by",
               "depends_on": "depends_on", "location": "documented_in"}


def entity_form(value: str) -> str:
    return re.sub(r"[^a-z0-9._:/-]+", "-", value.strip().lower()).strip("-")


@dataclass(frozen=True)
class Link:
    src: str
    relation: str
    dst: str
    quote: str
    kind: str = "graph_link"
    entity: str = ""  # merge_fact: whose facts; src/dst are its attributes
    value: str = ""
    source_ref: str = ""  # graph_link: the memory entry its quote is from
    entry_ids: tuple[str, ...] = ()  # merge_entries: the entries to consolidate

    @property
    def signature(self) -> str:
        if self.kind == "merge_entity":  # either direction is the same merge
            return "merge_entity|" + "|".join(sorted((self.src, self.dst)))
        if self.kind == "merge_fact":
            return f"merge_fact|{self.entity}|" + "|".join(sorted((self.src, self.dst)))
        if self.kind == "merge_entries":
            return "merge_entries|" + "|".join(sorted(self.entry_ids))
        return f"graph_link|{self.src}|{self.relation}|{self.dst}"


def entries_merge_link(cluster: memory_pb2.ConsolidationCluster) -> Link:
    """The newest member's text is kept; the quote holds no entry words."""
    ids = tuple(m.entry.id for m in cluster.members)
    return Link(ids[0], "same_as", ids[1],
                f"{len(ids)} live entries linked by cosine similarity >= "
                f"{cluster.min_similarity:.2f}", kind="merge_entries", entry_ids=ids)


def fact_merge_link(pair: cortex_pb2.FactPair) -> Link:
    return Link(pair.merge_attribute, "same_value", pair.keep_attribute, pair.reason,
                kind="merge_fact", entity=pair.entity, value=pair.value)


# The status a reader sees: an open proposal past its expiry is expired,
# whether or not a pass has marked it yet.
def _as_listed(r: Proposal) -> Proposal:
    if r.status == ProposalStatus.OPEN and r.expires_at < datetime.now(UTC):
        return dataclasses.replace(r, status=ProposalStatus.EXPIRED)
    return r


def summary(r: Proposal) -> str:
    if r.kind == "merge_entity":
        return f"merge {r.src} into {r.dst}"
    if r.kind == "merge_entries":
        return (f"consolidate {len(r.entry_ids)} entries ({', '.join(r.entry_ids)}) "
                f"into one with the text of {r.src}")
    if r.kind == "merge_fact":
        return (f"merge {r.entity}.{r.src} into {r.entity}.{r.dst} "
                f"(both {r.value!r})")
    return f"link {r.src} {r.relation} {r.dst}"


def merge_link(pair: cortex_pb2.EntityPair) -> Link:
    return Link(pair.merge, "same_as", pair.keep,
                f"{pair.reason}; {pair.merge} has {pair.merge_facts} live fact(s), "
                f"{pair.keep} has {pair.keep_facts}", kind="merge_entity")


class Proposals:
    def __init__(self, pool: asyncpg.Pool, backends: Backends) -> None:
        self._pool = pool
        self._backends = backends

    async def candidates(self, ns: str, written: list[tuple[uuid.UUID, Candidate, str]]
                         ) -> list[Link]:
        """Links from facts whose value is the name of another known entity."""
        links, seen = [], set()
        for _, c, _ in written:
            dst = entity_form(c.value)
            if not dst or dst == c.entity or len(dst) > 80 or (c.entity, dst) in seen:
                continue
            seen.add((c.entity, dst))
            history = await self._backends.history(ns, dst)
            if history.facts:
                links.append(Link(c.entity, RELATION_OF.get(c.attribute, "related_to"), dst,
                                  c.quote, source_ref=c.entry_id))
        return links

    async def record(self, conn: asyncpg.Connection, ns: str, run_id: uuid.UUID,
                     links: list[Link]) -> dict[str, int]:
        """Proposals made, by kind (a signature seen before is not made again).
        Open proposals past their expiry are marked expired here, in the pass's
        write path, not by a listing."""
        await repo.expire_open(conn)
        made: dict[str, int] = {}
        for link in links:
            inserted = await repo.insert(conn, ns, run_id, link)
            if inserted is not None:
                made[link.kind] = made.get(link.kind, 0) + 1
        return made

    async def listing(self, ns: str, status: str, kind: str = "") -> list[Proposal]:
        status = status or ProposalStatus.OPEN
        if status not in tuple(ProposalStatus):
            raise InvalidArgument("status is open, applying, approved, rejected or expired",
                                  field="status")
        if kind not in ("", *KINDS):
            raise InvalidArgument(f"kind is one of {', '.join(KINDS)}", field="kind")
        # A read writes nothing: an open proposal past its expiry is listed
        # as expired here and marked so by the next pass (record).
        async with tenant_tx(self._pool, ns) as conn:
            rows = await repo.listing(conn, status, kind)
        return [_as_listed(r) for r in rows]

    async def decide(self, ctx: CallerContext, proposal_id: str, decision: str,
                     reasoning: str) -> Proposal:
        ns = ctx.require_namespace()
        if ctx.role not in REVIEWER_ROLES:
            raise PermissionDenied("deciding a proposal needs the reviewer role; you are "
                                   f"{ctx.role or Role.AGENT}")
        if decision not in ("approve", "reject"):
            raise InvalidArgument("decision is approve or reject", field="decision")
        if not reasoning.strip() or len(reasoning) > 2000:
            raise InvalidArgument("reasoning is 1-2000 characters", field="reasoning")
        try:
            pid = uuid.UUID(proposal_id)
        except ValueError:
            raise InvalidArgument("proposal_id must be a proposal id",
                                  field="proposal_id") from None
        if decision == "reject":
            async with tenant_tx(self._pool, ns) as conn:
                await self._open_row(conn, pid, decision)
                return await repo.decide(conn, pid, ProposalStatus.REJECTED, ctx.principal,
                                         reasoning)
        async with tenant_tx(self._pool, ns) as conn:  # the mark
            row = await self._open_row(conn, pid, decision)
            if row.status == ProposalStatus.OPEN:
                row = await repo.decide(conn, pid, ProposalStatus.APPLYING, ctx.principal,
                                        reasoning)
        return await self._finish(ctx, row)

    @staticmethod
    async def _open_row(conn: asyncpg.Connection, pid: uuid.UUID,
                        decision: str) -> Proposal:
        """The proposal, locked; open, or being applied and this an approval
        (a retry finishes it)."""
        row = await repo.lock(conn, pid)
        if row is None:
            raise NotFound(f"no proposal {pid}")
        status = _as_listed(row).status
        if status == ProposalStatus.APPLYING and decision == "approve":
            return row
        if status == ProposalStatus.APPLYING:
            raise Conflict(f"proposal {pid} is being applied (approved by "
                           f"{row.decided_by}); repeat the approval to finish it")
        if status != ProposalStatus.OPEN:
            raise Conflict(f"proposal {pid} is already {status}")
        return row

    async def _finish(self, ctx: CallerContext, row: Proposal) -> Proposal:
        """The cortex call, keyed by the proposal, so a repeat after a lost
        reply is the same call; then the mark is finalised once."""
        try:
            await self._apply(dataclasses.replace(ctx, idempotency_key=f"proposal/{row.id}"),
                              row)
        except (Unavailable, DeadlineExceeded):
            raise  # the mark stays: a retry or the next pass finishes it
        except DomainError:  # cortex refused it (e.g. the slots disagree now): reopen
            async with tenant_tx(self._pool, ctx.require_namespace()) as conn:
                await repo.reopen(conn, row.id)
            raise
        async with tenant_tx(self._pool, ctx.require_namespace()) as conn:
            return await repo.finalise(conn, row.id) or await repo.held(conn, row.id)

    async def _apply(self, keyed: CallerContext, row: Proposal) -> None:
        reasoning = row.reasoning
        if row.kind == "merge_entries":
            await self._backends.consolidate(keyed, list(row.entry_ids), row.src,
                                             reasoning)
        elif row.kind == "merge_entity":
            await self._backends.merge_entities(keyed, row.src, row.dst, reasoning)
        elif row.kind == "merge_fact":
            await self._backends.retract(keyed, row.entity, row.src, row.value,
                                         f"duplicate of {row.entity}.{row.dst}: "
                                         f"{reasoning}"[:500])
        else:
            await self._backends.relate(keyed, cortex_pb2.RelateRequest(
                src=row.src, relation=row.relation, dst=row.dst,
                provenance="inferred", evidence_quote=row.evidence_quote))

    async def resume(self, ns: str) -> int:
        """Approvals a failure left marked but unapplied, finished (at the
        start of a pass), as the reviewer who decided them."""
        async with tenant_tx(self._pool, ns) as conn:
            rows = await repo.applying(conn)
        for row in rows:
            assert row.decided_by is not None  # decide() marked it applying
            await self._finish(CallerContext(principal=row.decided_by, namespace=ns,
                                             client_id="dreamer", role=Role.REVIEWER), row)
        return len(rows)

    async def revert_run(self, conn: asyncpg.Connection, run_id: uuid.UUID) -> None:
        """Part of a rollback: the run's proposals go; a decided one blocks it."""
        decided = await repo.decided_of_run(conn, run_id)
        if decided:
            raise Conflict("later writes depend on this run: proposals already decided: "
                           + ", ".join(f"{r.id} ({r.status})" for r in decided))
        await repo.delete_of_run(conn, run_id)
