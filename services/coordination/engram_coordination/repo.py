"""SQL for the board's agents and audit rows. The caller owns the
transaction (a tenant transaction, so RLS limits every statement to the
caller's namespace). Leases and mail live in repo_leases / repo_mail."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import asyncpg

from engram_kit import audit as audit_log
from engram_kit.db import fetchrow_one, fetchval_one
from engram_kit.rows import select_list

from .rows import AgentCounts, AgentRow

AGENT_COLUMNS = select_list(AgentRow)

# Columns an update may set; anything else is a programming error.
_AGENT_COLUMNS = frozenset({
    "project", "task", "status", "status_at", "expect_at", "children", "park_reason",
    "park_needs", "park_clear_by", "park_resume", "park_expires", "park_set_at",
})


async def touch_agent(conn: asyncpg.Connection, namespace: str, agent_id: str,
                      principal: str) -> bool:
    """Register on first sight, else heartbeat. True when newly registered."""
    return await fetchval_one(
        conn,
        """INSERT INTO agents (namespace, id, principal) VALUES ($1, $2, $3)
           ON CONFLICT (namespace, id) DO UPDATE SET last_seen = now()
           RETURNING (xmax = 0)""",
        namespace, agent_id, principal,
    )


async def heartbeat(conn: asyncpg.Connection, agent_id: str) -> None:
    """Move the heartbeat of a registered agent; registers nobody."""
    await conn.execute("UPDATE agents SET last_seen = now() WHERE id = $1", agent_id)


async def get_agent(conn: asyncpg.Connection, agent_id: str) -> AgentRow | None:
    row = await conn.fetchrow(f"SELECT {AGENT_COLUMNS} FROM agents WHERE id = $1", agent_id)
    return AgentRow.of(row) if row is not None else None


async def own_agent(conn: asyncpg.Connection, agent_id: str) -> AgentRow:
    """The acting agent, which board_tx registered in this transaction."""
    return AgentRow.of(await fetchrow_one(
        conn, f"SELECT {AGENT_COLUMNS} FROM agents WHERE id = $1", agent_id))


async def update_agent(conn: asyncpg.Connection, agent_id: str,
                       fields: dict[str, Any]) -> AgentRow:
    unknown = set(fields) - _AGENT_COLUMNS
    if unknown:
        raise ValueError(f"not updatable: {sorted(unknown)}")
    values = [json.dumps(v) if k == "children" else v for k, v in fields.items()]
    sets = ", ".join(f"{col} = ${i + 2}" for i, col in enumerate(fields))
    return AgentRow.of(await fetchrow_one(
        conn, f"UPDATE agents SET {sets} WHERE id = $1 RETURNING {AGENT_COLUMNS}",
        agent_id, *values))


async def active_agents(conn: asyncpg.Connection, since: datetime, exclude: str,
                        limit: int) -> list[AgentRow]:
    """Peers seen since `since`, leaseholders first, then most recent."""
    return AgentRow.all(await conn.fetch(
        f"""SELECT {AGENT_COLUMNS} FROM agents a
           WHERE a.last_seen >= $1 AND a.id <> $2
           ORDER BY EXISTS (SELECT 1 FROM leases l WHERE l.holder = a.id
                            AND l.expires_at > now()) DESC,
                    a.last_seen DESC, a.id
           LIMIT $3""",
        since, exclude, limit,
    ))


async def count_agents(conn: asyncpg.Connection, since: datetime,
                       exclude: str) -> AgentCounts:
    """Active and older peers, the caller excluded."""
    return AgentCounts.of(await fetchrow_one(
        conn,
        """SELECT count(*) FILTER (WHERE last_seen >= $1) AS active,
                  count(*) FILTER (WHERE last_seen < $1) AS older
           FROM agents WHERE id <> $2""",
        since, exclude,
    ))


async def agents_by_prefix(conn: asyncpg.Connection, prefix: str,
                           limit: int = 10) -> list[str]:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = await conn.fetch(
        "SELECT id FROM agents WHERE id LIKE $1 || '%' ORDER BY id LIMIT $2", escaped, limit)
    return [r["id"] for r in rows]


async def active_peer_ids(conn: asyncpg.Connection, since: datetime, exclude: str,
                          project: str | None, limit: int) -> list[str]:
    rows = await conn.fetch(
        """SELECT id FROM agents
           WHERE last_seen >= $1 AND id <> $2 AND ($3::text IS NULL OR project = $3)
           ORDER BY id LIMIT $4""",
        since, exclude, project, limit,
    )
    return [r["id"] for r in rows]


async def held_leases(conn: asyncpg.Connection, agent_ids: list[str]) -> dict[str, list[str]]:
    rows = await conn.fetch(
        """SELECT holder, name FROM leases
           WHERE holder = ANY($1::text[]) AND expires_at > now() ORDER BY name""",
        agent_ids,
    )
    held: dict[str, list[str]] = {}
    for r in rows:
        held.setdefault(r["holder"], []).append(r["name"])
    return held


async def audit(conn: asyncpg.Connection, namespace: str, principal: str, agent_id: str,
                action: str, subject: str = "", detail: dict[str, Any] | None = None) -> None:
    await audit_log.append(conn, namespace, principal, action, subject, detail,
                           extra={"agent_id": agent_id})
