"""SQL for facts, slots, tombstones, entities and the audit. The caller owns
the transaction (a tenant transaction: RLS limits it to one namespace)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import numpy as np

from engram_kit import audit as audit_log
from engram_kit import locks
from engram_kit.vocab import Verdict

from .rows import FactRow, SlotRow, select_list

LIVE_SERVED = (Verdict.ACTIVE, Verdict.CONTESTED)  # current truth, contested served with both sides
# What reads of facts select: the fields of FactRow (rows.py), never `*`.
FACT_COLUMNS = select_list(FactRow)
_OLD_COLUMNS = select_list(FactRow, "o")  # supersede's UPDATE names facts twice (o, n)
SLOT_COLUMNS = select_list(SlotRow)


@dataclass(frozen=True)
class NewFact:
    namespace: str
    entity: str
    attribute: str
    value: str
    norm_value: str
    kind: str
    verdict: str
    origin: str
    confidence: float
    quote: str
    source_type: str
    source_ref: str
    captured_by: str
    writer_principal: str
    writer_client: str
    writer_session: str
    valid_from: datetime | None
    embedding: np.ndarray | None
    details: dict[str, Any] = field(default_factory=dict)
    supersedes: uuid.UUID | None = None
    set_member: bool = False
    tags: list[str] = field(default_factory=list)


async def insert_fact(conn: asyncpg.Connection, f: NewFact) -> FactRow:
    d = f.details
    lifetime = d.get("expected_lifetime_seconds")
    row = await conn.fetchrow(
        """INSERT INTO facts (id, namespace, entity, attribute, value, norm_value, kind, verdict,
               origin, confidence, evidence_quote, source_type, source_ref, captured_by,
               writer_principal, writer_client, writer_session, valid_from, embedding, scope,
               trigger_predicate, status_detail, expected_lifetime, earned_by, risk_weight,
               subject, supersedes, set_member, tags, reopen_trigger)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                   coalesce($18, clock_timestamp()), $19, $20, $21, $22, $23, $24, $25, $26,
                   $27, $28, $29, $30)
           RETURNING """ + FACT_COLUMNS,
        uuid.uuid4(), f.namespace, f.entity, f.attribute, f.value, f.norm_value, f.kind,
        f.verdict, f.origin, f.confidence, f.quote, f.source_type, f.source_ref, f.captured_by,
        f.writer_principal, f.writer_client, f.writer_session, f.valid_from, f.embedding,
        d.get("scope"), d.get("trigger_predicate"), d.get("status_detail"),
        timedelta(seconds=lifetime) if lifetime else None, d.get("earned_by"),
        d.get("risk_weight"), d.get("subject"), f.supersedes, f.set_member, f.tags,
        d.get("reopen_trigger"),
    )
    assert row is not None  # INSERT ... RETURNING yields the row
    return FactRow.of(row)


async def lock_slot(conn: asyncpg.Connection, namespace: str, entity: str,
                    attribute: str) -> SlotRow | None:
    """Serialise every write to one slot; returns the slot row if any."""
    await locks.xact_lock(conn, f"cortex/{namespace}/{entity}/{attribute}")
    return await slot_row(conn, entity, attribute)


async def ensure_slot(conn: asyncpg.Connection, namespace: str, entity: str, attribute: str,
                      set_valued: bool) -> None:
    await conn.execute(
        """INSERT INTO slots (namespace, entity, attribute, set_valued) VALUES ($1, $2, $3, $4)
           ON CONFLICT DO NOTHING""", namespace, entity, attribute, set_valued)
    await conn.execute(
        "INSERT INTO entities (namespace, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        namespace, entity)


async def resolve_entity(conn: asyncpg.Connection, name: str) -> str:
    """Aliases resolve first."""
    return await conn.fetchval("SELECT entity FROM aliases WHERE alias = $1", name) or name


async def live_in_slot(conn: asyncpg.Connection, entity: str, attribute: str,
                       verdicts: tuple[str, ...] = LIVE_SERVED) -> list[FactRow]:
    return FactRow.all(await conn.fetch(
        f"""SELECT {FACT_COLUMNS} FROM live_facts WHERE entity = $1 AND attribute = $2
             AND verdict = ANY($3::text[]) ORDER BY recorded_at DESC""",
        entity, attribute, list(verdicts)))


async def get_fact(conn: asyncpg.Connection, fact_id: uuid.UUID) -> FactRow | None:
    row = await conn.fetchrow(f"SELECT {FACT_COLUMNS} FROM facts WHERE id = $1", fact_id)
    return None if row is None else FactRow.of(row)


async def supersede(conn: asyncpg.Connection, old_id: uuid.UUID, new_id: uuid.UUID,
                    reason: str) -> FactRow:
    """Retire `old` in favour of `new`: system time ends now, world time ends
    where the new value begins."""
    row = await conn.fetchrow(
        f"""UPDATE facts o SET verdict = 'superseded', superseded_by = $2,
                  retired_at = clock_timestamp(), retire_reason = $3,
                  valid_to = coalesce(o.valid_to, greatest(n.valid_from, o.valid_from))
           FROM facts n WHERE o.id = $1 AND n.id = $2 RETURNING {_OLD_COLUMNS}""",
        old_id, new_id, reason)
    assert row is not None  # callers pass facts they read in this transaction
    return FactRow.of(row)


async def set_verdict(conn: asyncpg.Connection, ids: list[uuid.UUID], verdict: str) -> None:
    await conn.execute("UPDATE facts SET verdict = $2 WHERE id = ANY($1::uuid[])", ids, verdict)


async def withdraw(conn: asyncpg.Connection, fact_id: uuid.UUID, reason: str,
                   end_validity: bool) -> FactRow:
    row = await conn.fetchrow(
        f"""UPDATE facts SET verdict = 'withdrawn', retired_at = clock_timestamp(),
                  retire_reason = $2,
                  valid_to = CASE WHEN $3 THEN coalesce(valid_to, clock_timestamp())
                                  ELSE valid_to END
           WHERE id = $1 RETURNING {FACT_COLUMNS}""",
        fact_id, reason, end_validity)
    assert row is not None  # callers pass a fact they read in this transaction
    return FactRow.of(row)


async def confirm(conn: asyncpg.Connection, fact_id: uuid.UUID) -> FactRow:
    """A restatement or paraphrase: one more confirmation, and verified now."""
    row = await conn.fetchrow(
        """UPDATE facts SET meta = jsonb_set(meta, '{confirmations}',
                  to_jsonb(coalesce((meta->>'confirmations')::int, 0) + 1)),
                  last_verified_at = clock_timestamp()
           WHERE id = $1 RETURNING """ + FACT_COLUMNS, fact_id)
    assert row is not None  # callers pass a fact they read in this transaction
    return FactRow.of(row)


async def tombstone(conn: asyncpg.Connection, namespace: str, row: FactRow,
                    reason: str) -> None:
    await conn.execute(
        """INSERT INTO tombstones (namespace, entity, attribute, norm_value, fact_id, reason)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (namespace, entity, attribute, norm_value)
           DO UPDATE SET fact_id = EXCLUDED.fact_id, reason = EXCLUDED.reason,
                         retired_at = clock_timestamp()""",
        namespace, row.entity, row.attribute, row.norm_value, row.id, reason)


async def find_tombstone(conn: asyncpg.Connection, entity: str, attribute: str,
                         norm_value: str) -> uuid.UUID | None:
    return await conn.fetchval(
        "SELECT fact_id FROM tombstones WHERE entity = $1 AND attribute = $2 AND norm_value = $3",
        entity, attribute, norm_value)


async def find_parked(conn: asyncpg.Connection, entity: str, attribute: str, kind: str,
                      norm_value: str) -> uuid.UUID | None:
    """A parked row already holding this value: a repeat confirms it."""
    return await conn.fetchval(
        """SELECT id FROM facts WHERE entity = $1 AND attribute = $2 AND kind = $3
              AND norm_value = $4 AND verdict = 'parked'
           ORDER BY recorded_at DESC LIMIT 1""", entity, attribute, kind, norm_value)


async def history(conn: asyncpg.Connection, entity: str,
                  attribute: str | None) -> list[FactRow]:
    return FactRow.all(await conn.fetch(
        f"""SELECT {FACT_COLUMNS} FROM facts
           WHERE entity = $1 AND ($2::text IS NULL OR attribute = $2)
           ORDER BY attribute, recorded_at LIMIT 1000""", entity, attribute))


async def as_of(conn: asyncpg.Connection, entity: str, attribute: str,
                at: datetime) -> list[FactRow]:
    """What was true in the world at `at`, by the facts' validity; a retracted
    fact was never true and is not served."""
    return FactRow.all(await conn.fetch(
        f"""SELECT {FACT_COLUMNS} FROM facts WHERE entity = $1 AND attribute = $2
             AND valid_from <= $3 AND (valid_to IS NULL OR valid_to > $3)
             AND (verdict IN ('active', 'superseded', 'contested')
                  OR (verdict = 'withdrawn' AND set_member))
           ORDER BY recorded_at DESC""", entity, attribute, at))


async def audit(conn: asyncpg.Connection, namespace: str, principal: str, action: str,
                subject: str, detail: dict[str, Any] | None = None) -> None:
    await audit_log.append(conn, namespace, principal, action, subject, detail)


async def forget_journal_images(conn: asyncpg.Connection, fact_ids: list[str]) -> None:
    """Journal rows that hold a forgotten fact's content: its own images, its
    conflicts' and its tombstones' (keyed by its normalised value)."""
    await conn.execute(
        """DELETE FROM journal WHERE
               (tbl = 'facts' AND row_key->>0 = ANY($1::text[]))
            OR (tbl = 'conflicts' AND (coalesce(post_image, pre_image)->>'fact_a' = ANY($1::text[])
                OR coalesce(post_image, pre_image)->>'fact_b' = ANY($1::text[])))
            OR (tbl = 'tombstones' AND (post_image->>'fact_id' = ANY($1::text[])
                OR pre_image->>'fact_id' = ANY($1::text[])))""", fact_ids)


async def live_of_kinds(conn: asyncpg.Connection, kinds: list[str],
                        limit: int) -> tuple[list[FactRow], int]:
    """Live facts of `kinds`, in the kinds' order, newest first; and how many
    there are in all."""
    rows = await conn.fetch(
        f"""SELECT {FACT_COLUMNS} FROM live_facts WHERE kind = ANY($1::text[])
           ORDER BY array_position($1::text[], kind), recorded_at DESC, id LIMIT $2""",
        kinds, limit)
    total = await conn.fetchval(
        "SELECT count(*) FROM live_facts WHERE kind = ANY($1::text[])", kinds)
    assert total is not None  # count(*) always yields a row
    return FactRow.all(rows), total


async def advisory_lock(conn: asyncpg.Connection, key: str) -> None:
    """A transaction-scoped lock on a name (a slot, an entity, a namespace's lessons)."""
    await locks.xact_lock(conn, key)


async def ensure_entity(conn: asyncpg.Connection, namespace: str, name: str) -> None:
    await conn.execute("INSERT INTO entities (namespace, name) VALUES ($1, $2) "
                       "ON CONFLICT DO NOTHING", namespace, name)


async def slot_row(conn: asyncpg.Connection, entity: str, attribute: str) -> SlotRow | None:
    row = await conn.fetchrow(
        f"SELECT {SLOT_COLUMNS} FROM slots WHERE entity = $1 AND attribute = $2",
        entity, attribute)
    return SlotRow.of(row) if row is not None else None


async def has_facts(conn: asyncpg.Connection, entity: str) -> bool:
    return bool(await conn.fetchval("SELECT 1 FROM facts WHERE entity = $1 LIMIT 1", entity))


async def alias_target(conn: asyncpg.Connection, alias: str) -> str | None:
    return await conn.fetchval("SELECT entity FROM aliases WHERE alias = $1", alias)


async def insert_alias(conn: asyncpg.Connection, namespace: str, alias: str, entity: str,
                       principal: str) -> None:
    await conn.execute(
        """INSERT INTO aliases (namespace, alias, entity, created_by)
           VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING""",
        namespace, alias, entity, principal)


async def mark_set_valued(conn: asyncpg.Connection, entity: str, attribute: str) -> None:
    await conn.execute("UPDATE slots SET set_valued = true WHERE entity = $1 "
                       "AND attribute = $2", entity, attribute)
