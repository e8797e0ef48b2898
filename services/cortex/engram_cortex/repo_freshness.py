"""SQL for freshness: verification stamps and changed evidence. The caller
owns the transaction."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg

from engram_kit.vocab import EvidenceChange

from .repo import FACT_COLUMNS
from .rows import FactRow

MEMORY_ENTRY = "memory_entry"  # the source_type of evidence that is a memory entry


async def verify(conn: asyncpg.Connection, ids: list[uuid.UUID]) -> list[FactRow]:
    return FactRow.all(await conn.fetch(
        f"""UPDATE facts SET last_verified_at = clock_timestamp()
           WHERE id = ANY($1::uuid[]) RETURNING {FACT_COLUMNS}""", ids))


async def flag(conn: asyncpg.Connection, namespace: str, refs: list[str],
               change: EvidenceChange, by_ref: str) -> int:
    """Record each entry's change once: a repeat (the same change) flags
    nothing; a different later change (contested, then superseded) replaces
    the earlier one."""
    rows = await conn.fetch(
        """INSERT INTO evidence_changes (namespace, source_ref, change, by_ref)
           SELECT $1, r, $3, $4 FROM unnest($2::text[]) r
           ON CONFLICT (namespace, source_ref) DO UPDATE
               SET change = EXCLUDED.change, by_ref = EXCLUDED.by_ref,
                   changed_at = clock_timestamp()
               WHERE evidence_changes.change <> EXCLUDED.change
           RETURNING source_ref""", namespace, refs, str(change), by_ref)
    return len(rows)


async def changed_evidence(conn: asyncpg.Connection,
                           rows: Sequence[FactRow]) -> dict[uuid.UUID, str]:
    """fact id -> why to check it again, for facts citing a memory entry that
    was superseded or contested after the fact was last verified; a fact never
    verified is flagged whenever its entry changed (it may rest on an entry
    that was already outdated when the fact was written)."""
    cited = [r for r in rows if r.source_type == MEMORY_ENTRY and r.source_ref]
    if not cited:
        return {}
    changes = {c["source_ref"]: c for c in await conn.fetch(
        """SELECT source_ref, change, by_ref, changed_at FROM evidence_changes
           WHERE source_ref = ANY($1::text[])""", list({r.source_ref for r in cited}))}
    out: dict[uuid.UUID, str] = {}
    for r in cited:
        c = changes.get(r.source_ref)
        if c is None or (r.last_verified_at is not None
                         and r.last_verified_at >= c["changed_at"]):
            continue
        by = f" by entry {c['by_ref']}" if c["by_ref"] else ""
        out[r.id] = (f"its evidence, memory entry {r.source_ref}, was {c['change']}{by} "
                        f"on {c['changed_at'].date().isoformat()}: check the fact still "
                        "holds, then fact_verify it")
    return out
