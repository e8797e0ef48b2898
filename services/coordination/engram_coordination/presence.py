"""Presence: who is on the board, what they are doing, and why they stopped."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from engram_kit import board_limits as board
from engram_kit.errors import InvalidArgument

from . import repo
from .board import Actor, board_read_tx, board_tx
from .rows import AgentRow
from .settings import CoordinationSettings

PARK_REASONS = ("done", "blocked", "needs_approval", "needs_info", "needs_resource",
                "waiting_peer")
PARK_LIMITS = {"needs": board.PARK_NOTE_MAX_CHARS, "clear_by": board.PARK_NOTE_MAX_CHARS,
               "resume": board.PARK_RESUME_MAX_CHARS}


@dataclass(frozen=True)
class AgentUpdate:
    project: str | None = None
    task: str | None = None
    status: str | None = None
    expect_seconds: int | None = None
    children: list[str] | None = None


@dataclass(frozen=True)
class ParkRecord:
    reason: str
    needs: str = ""
    clear_by: str = ""
    resume: str = ""
    expires_in_s: int = 0


@dataclass(frozen=True)
class AgentView:
    row: AgentRow
    leases: list[str]
    now: datetime


@dataclass(frozen=True)
class AgentList:
    agents: list[AgentView]
    self_view: AgentView | None  # None: the caller is not on the board
    older: int
    truncated: int


class Presence:
    def __init__(self, pool: asyncpg.Pool, settings: CoordinationSettings) -> None:
        self._pool = pool
        self._s = settings

    def _check_text(self, name: str, value: str | None, limit: int) -> None:
        if value is not None and len(value) > limit:
            raise InvalidArgument(f"{name} is {len(value)} chars; the limit is {limit}",
                                  field=name)

    def _children(self, labels: list[str], current: list[dict[str, Any]],
                  now: datetime) -> list[dict[str, Any]]:
        s = self._s
        if len(labels) > s.children_max:
            raise InvalidArgument(f"at most {s.children_max} children", field="children")
        if len(set(labels)) != len(labels):
            raise InvalidArgument("children labels must be unique", field="children")
        since = {c["label"]: c["since"] for c in current}
        out = []
        for label in labels:
            if not label.strip() or len(label) > s.child_label_max_chars:
                raise InvalidArgument(
                    f"a child label is 1-{s.child_label_max_chars} chars", field="children")
            out.append({"label": label, "since": since.get(label, now.isoformat())})
        return out

    async def update(self, actor: Actor, change: AgentUpdate) -> AgentView:
        for name in ("project", "task", "status"):
            self._check_text(name, getattr(change, name), self._s.field_max_chars)
        if change.expect_seconds is not None and not (
                0 <= change.expect_seconds <= self._s.park_max_s):
            raise InvalidArgument(f"expect_seconds is 0-{self._s.park_max_s}",
                                  field="expect_seconds")
        now = datetime.now(UTC)
        fields: dict[str, Any] = {k: v for k, v in (("project", change.project),
                                                     ("task", change.task)) if v is not None}
        if change.status is not None:
            # A plain status update means the agent is back at work: it
            # clears a standing park record.
            fields |= {"status": change.status, "status_at": now, "park_reason": None,
                       "park_needs": "", "park_clear_by": "", "park_resume": "",
                       "park_expires": None, "park_set_at": None}
        if change.expect_seconds is not None:
            fields["expect_at"] = (now + timedelta(seconds=change.expect_seconds)
                                   if change.expect_seconds else None)
        async with board_tx(self._pool, actor) as conn:
            if change.children is not None:
                current = await repo.get_agent(conn, actor.agent_id)
                fields["children"] = self._children(
                    change.children, _children_of(current), now)
            row = (await repo.update_agent(conn, actor.agent_id, fields) if fields
                   else await repo.own_agent(conn, actor.agent_id))
            if fields:
                detail = {k: (v.isoformat() if isinstance(v, datetime) else v)
                          for k, v in fields.items() if not k.startswith("park_")}
                await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                                 "agent.update", actor.agent_id, detail)
            held = await repo.held_leases(conn, [actor.agent_id])
        return AgentView(row, held.get(actor.agent_id, []), now)

    async def park(self, actor: Actor, park: ParkRecord) -> AgentView:
        if park.reason not in PARK_REASONS:
            raise InvalidArgument(f"park reason must be one of {', '.join(PARK_REASONS)}",
                                  field="reason")
        for name, limit in PARK_LIMITS.items():
            self._check_text(name, getattr(park, name), limit)
        expires_in = park.expires_in_s or self._s.park_default_s
        if not 0 < expires_in <= self._s.park_max_s:
            raise InvalidArgument(
                f"a park expires within {self._s.park_max_s} s", field="expires_in_seconds")
        now = datetime.now(UTC)
        fields = {"park_reason": park.reason, "park_needs": park.needs,
                  "park_clear_by": park.clear_by, "park_resume": park.resume,
                  "park_expires": now + timedelta(seconds=expires_in), "park_set_at": now}
        async with board_tx(self._pool, actor) as conn:
            row = await repo.update_agent(conn, actor.agent_id, fields)
            await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                             "agent.park", actor.agent_id,
                             {"reason": park.reason, "needs": park.needs,
                              "clear_by": park.clear_by, "resume": park.resume})
            held = await repo.held_leases(conn, [actor.agent_id])
        return AgentView(row, held.get(actor.agent_id, []), now)

    async def list(self, actor: Actor, limit: int) -> AgentList:
        s = self._s
        if not 0 <= limit <= s.list_max:
            raise InvalidArgument(f"limit is 1-{s.list_max}", field="limit")
        limit = limit or s.list_default
        now = datetime.now(UTC)
        since = now - timedelta(seconds=s.active_window_s)
        async with board_read_tx(self._pool, actor) as conn:
            rows = await repo.active_agents(conn, since, actor.agent_id, limit)
            counts = await repo.count_agents(conn, since, actor.agent_id)
            me = await repo.get_agent(conn, actor.agent_id)
            held = await repo.held_leases(conn, [r.id for r in rows] + [actor.agent_id])
        views = [AgentView(r, held.get(r.id, []), now) for r in rows]
        me_view = AgentView(me, held.get(actor.agent_id, []), now) if me else None
        return AgentList(views, me_view, counts.older, max(0, counts.active - len(rows)))


def _children_of(row: AgentRow | None) -> list[dict[str, Any]]:
    return row.child_list() if row is not None else []
