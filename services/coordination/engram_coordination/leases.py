"""Advisory leases with fencing tokens and a first-come wait queue.

A lease locks nothing: it tells cooperating agents who is working on a
named resource. The fencing token grows on every grant, so a resource that
remembers the highest token it has seen can refuse a stale holder's write.
When a lease frees up, the queue head has `lease_handoff_s` to take it; a
head that lets its window pass leaves the queue and the next one gets a
window. Every decision happens under the lease row's lock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import asyncpg

from engram_kit import audit as audit_log
from engram_kit.db import duty_tx
from engram_kit.errors import Conflict, InvalidArgument, PermissionDenied, ResourceExhausted

from . import repo, repo_leases
from .board import Actor, HintPublisher, Hints, board_read_tx, board_tx
from .notices import send_notice
from .rows import LeaseRow
from .settings import CoordinationSettings

ADVISORY = ("advisory: a lease locks no data; pass fencing_token to shared resources so "
            "they can refuse a stale holder")


@dataclass(frozen=True)
class LeaseState:
    row: LeaseRow  # a LeaseAt when read with the database's clock
    queue: list[str]
    offered_until: datetime | None


@dataclass(frozen=True)
class LeaseOutcome:
    state: LeaseState
    granted: bool = False
    renewed: bool = False
    queue_position: int = 0
    note: str = ADVISORY


class Leases:
    def __init__(self, pool: asyncpg.Pool, settings: CoordinationSettings,
                 hints: HintPublisher) -> None:
        self._pool = pool
        self._s = settings
        self._hints = hints

    def _check(self, name: str, ttl_s: int) -> float:
        s = self._s
        if not name.strip() or len(name) > s.lease_name_max_chars:
            raise InvalidArgument(f"a lease name is 1-{s.lease_name_max_chars} chars",
                                  field="name")
        ttl = ttl_s or s.lease_ttl_default_s
        if not s.lease_ttl_min_s <= ttl <= s.lease_ttl_max_s:
            raise InvalidArgument(
                f"ttl_seconds is {s.lease_ttl_min_s}-{s.lease_ttl_max_s}", field="ttl_seconds")
        return float(ttl)

    async def _settle(self, conn: asyncpg.Connection, actor_ns: str, name: str,
                      hints: Hints) -> LeaseState:
        """Lock the lease and bring it to the present: expire an overdue
        grant, move the hand-over window past heads that let theirs lapse,
        and tell a newly offered head (mail notice + hint)."""
        row = await repo_leases.lock_lease(conn, actor_ns, name)
        now = row.now
        if row.holder is not None and row.expires_at is not None and row.expires_at <= now:
            await repo.audit(conn, actor_ns, "board", row.holder, "lease.expire", name,
                             {"fencing_token": row.last_token})
            hints.add(self._hints.lease(actor_ns, name),
                      {"event": "expired", "lease": name, "holder": row.holder})
            row = await repo_leases.mark_expired(conn, name)
        queue = await repo_leases.queue(conn, name)
        if row.holder is not None or row.free_since is None:
            return LeaseState(row, queue, None)
        window = timedelta(seconds=self._s.lease_handoff_s)
        start = row.free_since
        while queue and now >= start + window:
            lapsed = queue.pop(0)
            await repo_leases.dequeue(conn, name, lapsed)
            await repo.audit(conn, actor_ns, "board", lapsed, "lease.handover_lapsed", name)
            start += window
        if start != row.free_since:
            await repo_leases.restart_handover(conn, name, start)
        head = queue[0] if queue else None
        if head != row.offered_to:
            await repo_leases.set_offer(conn, name, head)
            if head is not None:
                await send_notice(conn, actor_ns, head, hints, self._hints,
                                  f"lease {name!r} is free and offered to you until "
                                  f"{(start + window).isoformat()}; take it with "
                                  f"board_lease(action='claim', name={name!r})")
        row = await repo_leases.state(conn, name)
        return LeaseState(row, queue, start + window if head else None)

    async def _enqueue(self, conn: asyncpg.Connection, actor: Actor, name: str,
                       state: LeaseState) -> int:
        if actor.agent_id not in state.queue:
            if len(state.queue) >= self._s.lease_queue_max:
                raise ResourceExhausted(
                    f"lease {name!r} already has {self._s.lease_queue_max} waiters "
                    "(lease_queue_max)")
            await repo_leases.enqueue(conn, actor.namespace, name, actor.agent_id)
            await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                             "lease.queue", name)
            state.queue.append(actor.agent_id)
        return state.queue.index(actor.agent_id) + 1

    async def claim(self, actor: Actor, name: str, ttl_s: int, no_queue: bool) -> LeaseOutcome:
        ttl = self._check(name, ttl_s)
        hints = Hints()
        async with board_tx(self._pool, actor) as conn:
            state = await self._settle(conn, actor.namespace, name, hints)
            outcome = await self._claim_settled(conn, actor, name, ttl, no_queue, state, hints)
        await self._hints.publish(hints)
        return outcome

    async def _claim_settled(self, conn: asyncpg.Connection, actor: Actor, name: str,
                             ttl: float, no_queue: bool, state: LeaseState,
                             hints: Hints) -> LeaseOutcome:
        holder, offered = state.row.holder, state.row.offered_to
        if holder == actor.agent_id:
            return await self._renew(conn, actor, name, ttl, state)
        if holder is None and offered in (None, actor.agent_id):
            row = await repo_leases.grant(conn, name, actor.agent_id, ttl)
            if actor.agent_id in state.queue:
                await repo_leases.dequeue(conn, name, actor.agent_id)
                state.queue.remove(actor.agent_id)
            await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                             "lease.grant", name, {"fencing_token": row.last_token,
                                                   "ttl_seconds": ttl})
            hints.add(self._hints.lease(actor.namespace, name),
                      {"event": "granted", "lease": name, "holder": actor.agent_id,
                       "fencing_token": row.last_token})
            return LeaseOutcome(LeaseState(row, state.queue, None), granted=True)
        position = 0 if no_queue else await self._enqueue(conn, actor, name, state)
        until = state.offered_until
        why = (f"held by {holder}" if holder else f"offered to queue head {offered}"
               + (f" until {until.isoformat()}" if until else ""))
        return LeaseOutcome(state, queue_position=position,
                            note=f"not granted: {why}" + ("" if no_queue else
                                                          f"; you are #{position} in the queue"))

    async def renew(self, actor: Actor, name: str, ttl_s: int) -> LeaseOutcome:
        ttl = self._check(name, ttl_s)
        hints = Hints()
        async with board_tx(self._pool, actor) as conn:
            state = await self._settle(conn, actor.namespace, name, hints)
            if state.row.holder != actor.agent_id:
                raise Conflict(f"you do not hold lease {name!r} (it expired or was never "
                               "yours); claim it again for a new fencing token")
            outcome = await self._renew(conn, actor, name, ttl, state)
        await self._hints.publish(hints)
        return outcome

    async def _renew(self, conn: asyncpg.Connection, actor: Actor, name: str, ttl: float,
                     state: LeaseState) -> LeaseOutcome:
        row = await repo_leases.renew(conn, name, ttl)
        await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                         "lease.renew", name, {"fencing_token": row.last_token,
                                               "ttl_seconds": ttl})
        return LeaseOutcome(LeaseState(row, state.queue, None), granted=True, renewed=True)

    async def release(self, actor: Actor, name: str) -> LeaseOutcome:
        self._check(name, 0)
        hints = Hints()
        async with board_tx(self._pool, actor) as conn:
            state = await self._settle(conn, actor.namespace, name, hints)
            holder = state.row.holder
            if holder == actor.agent_id:
                await repo_leases.release(conn, name)
                await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                                 "lease.release", name,
                                 {"fencing_token": state.row.last_token})
                hints.add(self._hints.lease(actor.namespace, name),
                          {"event": "released", "lease": name, "holder": actor.agent_id})
                state, note = await self._settle(conn, actor.namespace, name, hints), "released"
            elif actor.agent_id in state.queue:
                await repo_leases.dequeue(conn, name, actor.agent_id)
                await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                                 "lease.leave_queue", name)
                state.queue.remove(actor.agent_id)
                note = "left the queue"
            elif holder is not None:
                raise PermissionDenied(f"lease {name!r} is held by {holder}; only its holder "
                                       "can release it")
            else:
                raise Conflict(f"lease {name!r} is not held and you are not queued for it")
        await self._hints.publish(hints)
        return LeaseOutcome(state, note=note)

    async def list(self, actor: Actor, prefix: str) -> list[LeaseState]:
        async with board_read_tx(self._pool, actor) as conn:
            rows = await repo_leases.list_leases(conn, prefix)
        window = timedelta(seconds=self._s.lease_handoff_s)
        return [LeaseState(r, list(r.waiting),
                           r.free_since + window if r.offered_to and r.free_since else None)
                for r in rows]

    async def sweep_once(self) -> int:
        """Expire grants and move hand-overs for queued leases nobody is
        touching, so a waiting head hears of its window on time."""
        async with duty_tx(self._pool, "lease_sweep") as conn:
            due = await repo_leases.sweep_candidates(conn)
        for item in due:
            hints = Hints()
            async with audit_log.audited_tx(self._pool, item.namespace) as conn:
                await self._settle(conn, item.namespace, item.name, hints)
            await self._hints.publish(hints)
        return len(due)
