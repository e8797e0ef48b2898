"""Forgetting follows the evidence: when memory forgets an entry, the facts
whose evidence is that entry are deleted (not kept as history), with the
conflicts they were in and the tombstones of their values; a fact they
contested goes back to active when no other conflict holds it. Journal
images of them (a dream pass's batch) go too, and the audit only ever held
hashes of values and quotes: the content does not outlive the entry."""

from __future__ import annotations

import uuid

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument

from . import repo


async def forget_by_source(pool: asyncpg.Pool, ctx: CallerContext, refs: list[str],
                           reason: str) -> int:
    ns = ctx.require_namespace()
    if not refs or len(refs) > 500:
        raise InvalidArgument("1-500 source refs per call", field="source_refs")
    async with tenant_tx(pool, ns) as conn:
        ids = [r["id"] for r in await conn.fetch(
            """SELECT id FROM facts WHERE source_type = 'memory_entry'
               AND source_ref = ANY($1::text[]) FOR UPDATE""", refs)]
        if not ids:
            return 0
        partners = await conn.fetch(
            """SELECT CASE WHEN fact_a = ANY($1::uuid[]) THEN fact_b ELSE fact_a END AS other
               FROM conflicts WHERE status = 'open'
                 AND (fact_a = ANY($1::uuid[]) OR fact_b = ANY($1::uuid[]))""", ids)
        await conn.execute("DELETE FROM conflicts WHERE fact_a = ANY($1::uuid[]) "
                           "OR fact_b = ANY($1::uuid[])", ids)
        await conn.execute("DELETE FROM tombstones WHERE fact_id = ANY($1::uuid[])", ids)
        await conn.execute("DELETE FROM facts WHERE id = ANY($1::uuid[])", ids)
        await repo.forget_journal_images(conn, [str(i) for i in ids])
        await _reactivate(conn, [p["other"] for p in partners if p["other"] not in ids])
        await repo.audit(conn, ns, ctx.principal, "fact.forget", "",
                         {"facts": len(ids), "source_refs": refs[:50], "reason": reason[:500]})
        return len(ids)


async def _reactivate(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> None:
    """A contested fact whose last open conflict is gone is active again."""
    await conn.execute(
        """UPDATE facts f SET verdict = 'active' WHERE f.id = ANY($1::uuid[])
             AND f.verdict = 'contested' AND NOT EXISTS (
               SELECT 1 FROM conflicts c WHERE c.status = 'open'
                 AND (c.fact_a = f.id OR c.fact_b = f.id))""", ids)
