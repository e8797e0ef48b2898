"""Forgetting follows the evidence: when memory forgets an entry, the facts
whose evidence is that entry are deleted (not kept as history), with the
conflicts they were in and the tombstones of their values; a fact they
contested goes back to active when no other conflict holds it. Journal
images of them (a dream pass's batch) go too, and the audit only ever held
hashes of values and quotes: the content does not outlive the entry."""

from __future__ import annotations

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import InvalidArgument

from . import repo, repo_forget


async def forget_by_source(pool: asyncpg.Pool, ctx: CallerContext, refs: list[str],
                           reason: str) -> int:
    ns = ctx.require_namespace()
    if not refs or len(refs) > 500:
        raise InvalidArgument("1-500 source refs per call", field="source_refs")
    async with tenant_tx(pool, ns) as conn:
        ids = await repo_forget.lock_by_source(conn, refs)
        if not ids:
            return 0
        partners = await repo_forget.open_partners(conn, ids)
        await repo_forget.delete_facts(conn, ids)
        await repo.forget_journal_images(conn, [str(i) for i in ids])
        await repo_forget.reactivate(conn, [p for p in partners if p not in ids])
        await repo.audit(conn, ns, ctx.principal, "fact.forget", "",
                         {"facts": len(ids), "source_refs": refs[:50], "reason": reason[:500]})
        return len(ids)

