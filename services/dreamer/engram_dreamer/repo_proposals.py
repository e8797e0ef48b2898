"""SQL of the dreamer's proposals. The caller owns the transaction."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg

from engram_kit.db import fetchrow_one, fetchval_one
from engram_kit.rows import select_list

from .rows import DecidedProposal, Proposal

PROPOSAL_COLUMNS = select_list(Proposal)

# An open proposal past its expiry reads as expired before a pass marks it.
_STATUS_SQL = ("(CASE WHEN status = 'open' AND expires_at < now() THEN 'expired' "
               "ELSE status END)")


async def expire_open(conn: asyncpg.Connection) -> None:
    await conn.execute("UPDATE proposals SET status = 'expired' "
                       "WHERE status = 'open' AND expires_at < now()")


async def insert(conn: asyncpg.Connection, ns: str, run_id: uuid.UUID,
                 link: Any) -> uuid.UUID | None:
    """None when a proposal with the link's signature exists."""
    return await conn.fetchval(
        """INSERT INTO proposals (namespace, id, signature, kind, src, relation, dst,
               evidence_quote, run_id, entity, value, source_ref, entry_ids)
           VALUES ($1, $2, $3, $9, $4, $5, $6, $7, $8, $10, $11, $12, $13)
           ON CONFLICT (namespace, signature) DO NOTHING RETURNING id""",
        ns, uuid.uuid4(), link.signature, link.src, link.relation, link.dst,
        link.quote, run_id, link.kind, link.entity, link.value, link.source_ref,
        list(link.entry_ids))


def _row(record: asyncpg.Record | None) -> Proposal | None:
    return None if record is None else Proposal.of(record)


async def listing(conn: asyncpg.Connection, status: str, kind: str) -> list[Proposal]:
    return Proposal.all(await conn.fetch(
        f"SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE {_STATUS_SQL} = $1"
        " AND ($2 = '' OR kind = $2) ORDER BY created_at LIMIT 200", status, kind))


async def lock(conn: asyncpg.Connection, pid: uuid.UUID) -> Proposal | None:
    return _row(await conn.fetchrow(
        f"SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = $1 FOR UPDATE", pid))


async def get(conn: asyncpg.Connection, pid: uuid.UUID) -> Proposal | None:
    return _row(await conn.fetchrow(f"SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = $1",
                                    pid))


async def held(conn: asyncpg.Connection, pid: uuid.UUID) -> Proposal:
    """A proposal this transaction knows exists."""
    return Proposal.of(await fetchrow_one(
        conn, f"SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = $1", pid))


async def applying(conn: asyncpg.Connection) -> list[Proposal]:
    """Approvals marked but not yet applied (a failure left them)."""
    return Proposal.all(await conn.fetch(
        f"SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE status = 'applying'"))


async def reopen(conn: asyncpg.Connection, pid: uuid.UUID) -> None:
    await conn.execute("UPDATE proposals SET status = 'open', decided_by = NULL, "
                       "decided_at = NULL WHERE id = $1 AND status = 'applying'", pid)


async def finalise(conn: asyncpg.Connection, pid: uuid.UUID) -> Proposal | None:
    """The applied approval marked approved; None when another call did it."""
    return _row(await conn.fetchrow(
        "UPDATE proposals SET status = 'approved' WHERE id = $1 AND status = 'applying'"
        f" RETURNING {PROPOSAL_COLUMNS}", pid))


async def decide(conn: asyncpg.Connection, pid: uuid.UUID, status: str, principal: str,
                 reasoning: str) -> Proposal:
    return Proposal.of(await fetchrow_one(
        conn,
        """UPDATE proposals SET status = $2, decided_by = $3,
                  decided_at = clock_timestamp(), reasoning = $4
           WHERE id = $1 RETURNING """ + PROPOSAL_COLUMNS, pid, status, principal, reasoning))


async def decided_of_run(conn: asyncpg.Connection, run_id: uuid.UUID) -> list[DecidedProposal]:
    return DecidedProposal.all(await conn.fetch(
        f"SELECT {select_list(DecidedProposal)} FROM proposals WHERE run_id = $1"
        " AND status IN ('applying', 'approved', 'rejected')", run_id))


async def delete_of_run(conn: asyncpg.Connection, run_id: uuid.UUID) -> None:
    await conn.execute("DELETE FROM proposals WHERE run_id = $1", run_id)


async def open_count(conn: asyncpg.Connection) -> int:
    return await fetchval_one(conn, "SELECT count(*) FROM proposals "
                              "WHERE status = 'open' AND expires_at >= now()")
