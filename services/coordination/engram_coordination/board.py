"""What every board call shares: who the acting agent is, one tenant
transaction that also registers/heartbeats that agent (a listing registers
nobody), and live hints published over NATS core subjects after the
transaction commits."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from engram_kit import audit as audit_log
from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Unauthenticated
from engram_kit.events import NatsLink

from . import repo

log = logging.getLogger(__name__)
BOARD_SENDER = "board"  # the sender of lease notices
_SUBJECT_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class Actor:
    namespace: str
    principal: str
    agent_id: str
    role: str
    read_only: bool = False  # a read grant: the board writes nothing for it


# Principal names never contain it, so `<principal>~<digest>` is no other
# principal's id, whatever session a client picks.
AGENT_SEP = "~"
SESSION_DIGEST_HEX = 16  # 64 bits: sessions of one principal do not meet by chance


def agent_id_of(principal: str, session: str) -> str:
    """An agent is its principal plus its client instance (the MCP session).
    Without a session of its own the principal is one agent."""
    if not session or session == f"principal:{principal}":
        return principal
    digest = hashlib.sha256(session.encode()).hexdigest()[:SESSION_DIGEST_HEX]
    return f"{principal}{AGENT_SEP}{digest}"


def actor_of(ctx: CallerContext) -> Actor:
    namespace = ctx.require_namespace()
    if not ctx.principal:
        raise Unauthenticated("the board needs an authenticated principal")
    return Actor(namespace, ctx.principal, agent_id_of(ctx.principal, ctx.session_id),
                 ctx.role, ctx.read_only)


def subject_token(value: str) -> str:
    return _SUBJECT_UNSAFE.sub("_", value) or "_"


@dataclass
class Hints:
    """Collected during a transaction, published once it has committed."""

    items: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def add(self, subject: str, payload: dict[str, Any]) -> None:
        self.items.append((subject, payload))


class HintPublisher:
    def __init__(self, link: NatsLink | None, prefix: str) -> None:
        self._link = link
        self._prefix = prefix

    def mail(self, namespace: str, recipient: str) -> str:
        return f"{self._prefix}.{subject_token(namespace)}.mail.{subject_token(recipient)}"

    def lease(self, namespace: str, name: str) -> str:
        return f"{self._prefix}.{subject_token(namespace)}.lease.{subject_token(name)}"

    async def publish(self, hints: Hints) -> None:
        """Best effort: a hint is a wake-up, the database is the truth, so a
        NATS outage costs latency, never mail."""
        nc = self._link.nc if self._link is not None else None
        if nc is None or not nc.is_connected or not hints.items:
            return
        try:
            for subject, payload in hints.items:
                await nc.publish(subject, json.dumps(payload).encode())
        except Exception as exc:
            log.warning("board hint not published", extra={"fields": {"error": repr(exc)}})


@asynccontextmanager
async def board_tx(pool: asyncpg.Pool, actor: Actor) -> AsyncIterator[asyncpg.Connection]:
    """A tenant transaction in which the acting agent is registered (audited
    once) and its heartbeat moved."""
    async with audit_log.audited_tx(pool, actor.namespace) as conn:
        if await repo.touch_agent(conn, actor.namespace, actor.agent_id, actor.principal):
            await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                             "agent.register", actor.agent_id)
        yield conn


@asynccontextmanager
async def board_read_tx(pool: asyncpg.Pool,
                        actor: Actor) -> AsyncIterator[asyncpg.Connection]:
    """A tenant transaction for a listing: it registers nobody and audits
    nothing; it moves the heartbeat of an agent already on the board, unless
    the caller holds a read grant only (then it writes nothing at all)."""
    async with tenant_tx(pool, actor.namespace) as conn:
        if not actor.read_only:
            await repo.heartbeat(conn, actor.agent_id)
        yield conn
