"""gRPC servicer: proto <-> domain translation only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from engram.v1 import coordination_pb2 as pb
from engram.v1 import coordination_pb2_grpc as rpc
from engram_kit.context import current_caller
from engram_kit.timestamps import to_timestamp

from .board import actor_of
from .leases import LeaseOutcome, Leases, LeaseState
from .mail import Mail
from .presence import AgentUpdate, AgentView, ParkRecord, Presence
from .rows import InboxMessage, LeaseAt
from .settings import CoordinationSettings
from .stats import board_counts
from .toolsets import Toolsets


def agent_message(view: AgentView, settings: CoordinationSettings,
                  is_self: bool = False) -> pb.Agent:
    row, now = view.row, view.now
    age = int((now - row.status_at).total_seconds())
    agent = pb.Agent(
        id=row.id, principal=row.principal, project=row.project, task=row.task,
        status=row.status, status_at=to_timestamp(row.status_at),
        status_age_seconds=age, stale=bool(row.status) and age > settings.stale_status_s,
        expect_at=to_timestamp(row.expect_at),
        overdue=row.expect_at is not None and now > row.expect_at,
        children=[pb.Child(label=c["label"], since=to_timestamp(
            datetime.fromisoformat(c["since"]))) for c in row.child_list()],
        last_seen=to_timestamp(row.last_seen), leases=view.leases, is_self=is_self,
    )
    if row.park_reason and row.park_expires and row.park_expires > now:
        agent.park.CopyFrom(pb.Park(
            reason=row.park_reason, needs=row.park_needs, clear_by=row.park_clear_by,
            resume=row.park_resume, expires_at=to_timestamp(row.park_expires),
            set_at=to_timestamp(row.park_set_at)))
    return agent


def lease_message(state: LeaseState) -> pb.Lease:
    row = state.row
    now = row.now if isinstance(row, LeaseAt) else None
    held = row.holder is not None and (now is None or row.expires_at is None
                                       or row.expires_at > now)
    return pb.Lease(
        name=row.name, holder=row.holder if held else "",
        fencing_token=row.last_token,
        expires_at=to_timestamp(row.expires_at) if held else None,
        queue=state.queue, offered_to=row.offered_to or "" if not held else "",
        offered_until=to_timestamp(state.offered_until) if not held else None,
    )


def lease_reply(outcome: LeaseOutcome) -> pb.LeaseReply:
    lease = lease_message(outcome.state)
    return pb.LeaseReply(
        granted=outcome.granted, renewed=outcome.renewed,
        fencing_token=lease.fencing_token if outcome.granted else 0,
        holder=lease.holder, expires_at=lease.expires_at if lease.holder else None,
        queue_position=outcome.queue_position, lease=lease, note=outcome.note,
    )


def mail_message(row: InboxMessage) -> pb.MailMessage:
    return pb.MailMessage(
        id=str(row.id), sender=row.sender, sender_principal=row.sender_principal,
        text=row.body if row.body is not None else "[body erased]",
        sent_at=to_timestamp(row.sent_at), kind=row.kind,
        addressed_to=row.addressed_to, redacted=row.body is None,
        request_id=row.request_id,
    )


def _optional(request: Any, name: str) -> Any:
    return getattr(request, name) if request.HasField(name) else None


class CoordinationServicer(rpc.CoordinationServiceServicer):
    def __init__(self, settings: CoordinationSettings, presence: Presence, leases: Leases,
                 mail: Mail, pool: asyncpg.Pool, toolsets: Toolsets) -> None:
        self._s = settings
        self._toolsets = toolsets
        self._pool = pool
        self._presence = presence
        self._leases = leases
        self._mail = mail

    async def UpdateAgent(self, request: pb.UpdateAgentRequest, context: Any) -> pb.AgentReply:
        change = AgentUpdate(
            project=_optional(request, "project"), task=_optional(request, "task"),
            status=_optional(request, "status"),
            expect_seconds=_optional(request, "expect_seconds"),
            children=list(request.children) if request.set_children else None)
        view = await self._presence.update(actor_of(current_caller()), change)
        return pb.AgentReply(agent=agent_message(view, self._s, is_self=True))

    async def ParkAgent(self, request: pb.ParkRequest, context: Any) -> pb.AgentReply:
        park = ParkRecord(request.reason, request.needs, request.clear_by, request.resume,
                          request.expires_in_seconds)
        view = await self._presence.park(actor_of(current_caller()), park)
        return pb.AgentReply(agent=agent_message(view, self._s, is_self=True))

    async def ListAgents(self, request: pb.ListAgentsRequest,
                         context: Any) -> pb.ListAgentsResponse:
        actor = actor_of(current_caller())
        board = await self._presence.list(actor, request.limit)
        # A caller not yet on the board (a listing registers nobody) is
        # shown by its id alone.
        me = (agent_message(board.self_view, self._s, is_self=True) if board.self_view
              else pb.Agent(id=actor.agent_id, principal=actor.principal, is_self=True))
        return pb.ListAgentsResponse(
            agents=[agent_message(v, self._s) for v in board.agents],
            older_count=board.older, truncated_count=board.truncated, self=me,
            active_window_seconds=self._s.active_window_s)

    async def ClaimLease(self, request: pb.ClaimLeaseRequest, context: Any) -> pb.LeaseReply:
        return lease_reply(await self._leases.claim(
            actor_of(current_caller()), request.name, request.ttl_seconds, request.no_queue))

    async def RenewLease(self, request: pb.LeaseRequest, context: Any) -> pb.LeaseReply:
        return lease_reply(await self._leases.renew(
            actor_of(current_caller()), request.name, request.ttl_seconds))

    async def ReleaseLease(self, request: pb.LeaseRequest, context: Any) -> pb.LeaseReply:
        return lease_reply(await self._leases.release(actor_of(current_caller()), request.name))

    async def ListLeases(self, request: pb.ListLeasesRequest,
                         context: Any) -> pb.ListLeasesResponse:
        states = await self._leases.list(actor_of(current_caller()), request.name_prefix)
        return pb.ListLeasesResponse(leases=[lease_message(s) for s in states])

    async def SendMessage(self, request: pb.SendMessageRequest,
                          context: Any) -> pb.SendMessageResponse:
        result = await self._mail.send(actor_of(current_caller()), request.to, request.text,
                                       request.request_id)
        return pb.SendMessageResponse(
            receipts=[pb.Receipt(message_id=m, recipient=r) for m, r in result.receipts],
            duplicate=result.duplicate)

    async def ReceiveMessages(self, request: pb.ReceiveMessagesRequest,
                              context: Any) -> pb.ReceiveMessagesResponse:
        inbox = await self._mail.receive(actor_of(current_caller()), request.limit,
                                         request.cursor)
        return pb.ReceiveMessagesResponse(
            messages=[mail_message(r) for r in inbox.messages], next_cursor=inbox.next_cursor,
            pending=inbox.pending)

    async def AckMessages(self, request: pb.AckMessagesRequest,
                          context: Any) -> pb.AckMessagesResponse:
        acked, already = await self._mail.ack(actor_of(current_caller()), list(request.ids))
        return pb.AckMessagesResponse(acked=acked, already_acked=already)

    async def RedactMessages(self, request: pb.RedactMessagesRequest,
                             context: Any) -> pb.RedactMessagesResponse:
        done = await self._mail.redact(actor_of(current_caller()), list(request.ids))
        return pb.RedactMessagesResponse(redacted=done)

    async def ForgetMessage(self, request: pb.ForgetMessageRequest,
                            context: Any) -> pb.ForgetMessageResponse:
        ids = await self._mail.forget(actor_of(current_caller()), request.id, request.reason)
        return pb.ForgetMessageResponse(ids=ids)
    async def BoardStats(self, request: pb.BoardStatsRequest,  # noqa: N802
                         context: Any) -> pb.BoardStatsResponse:
        c = await board_counts(self._pool, self._s, current_caller())
        return pb.BoardStatsResponse(
            agents=c.agents, agents_active=c.active, leases_held=c.held,
            lease_waiters=c.waiters, mail_pending=c.pending,
            mail_acked_bodies=c.acked_bodies)

    async def GetToolset(self, request: pb.GetToolsetRequest, context: Any) -> pb.ToolsetReply:
        return pb.ToolsetReply(tier=await self._toolsets.get(current_caller()))

    async def SetToolset(self, request: pb.SetToolsetRequest, context: Any) -> pb.ToolsetReply:
        return pb.ToolsetReply(tier=await self._toolsets.set(current_caller(), request.tier))
