"""Board mail: addressed, deduplicated, rate-limited, acked explicitly.

Mail is coordination traffic, not memory: it lives only in this schema and
never reaches retrieval, the dreamer or the cortex."""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg

from engram_kit.errors import (
    Conflict,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from engram_kit.vocab import Role

from . import mail_forget, repo, repo_mail
from .board import Actor, HintPublisher, Hints, board_read_tx, board_tx
from .notices import body_hash
from .rows import InboxMessage
from .secret_screen import secret_kind
from .settings import CoordinationSettings


@dataclass(frozen=True)
class SendResult:
    receipts: list[tuple[str, str]]  # (message id, recipient)
    duplicate: bool


@dataclass(frozen=True)
class Inbox:
    messages: list[InboxMessage]
    next_cursor: str
    pending: int


def encode_cursor(sent_at: datetime, message_id: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(f"{sent_at.isoformat()}|{message_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    try:
        at, mid = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        return datetime.fromisoformat(at), uuid.UUID(mid)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgument("cursor is not one this board issued; pass next_cursor "
                              "from the previous receive", field="cursor") from None


def parse_ids(ids: list[str], limit: int) -> list[uuid.UUID]:
    if not ids:
        raise InvalidArgument("give at least one message id", field="ids")
    if len(ids) > limit:
        raise InvalidArgument(f"at most {limit} ids per call", field="ids")
    parsed = []
    for raw in ids:
        try:
            parsed.append(uuid.UUID(raw.strip()))
        except ValueError:
            raise InvalidArgument(f"{raw!r} is not a message id", field="ids") from None
    return parsed


class Mail:
    def __init__(self, pool: asyncpg.Pool, settings: CoordinationSettings,
                 hints: HintPublisher) -> None:
        self._pool = pool
        self._s = settings
        self._hints = hints

    def _check_send(self, to: str, text: str, request_id: str) -> None:
        s = self._s
        if not to.strip():
            raise InvalidArgument("to is required: an agent id or prefix, project:<name>, "
                                  "or all", field="to")
        size = len(text.encode())
        if not text.strip():
            raise InvalidArgument("text is empty", field="text")
        if size > s.message_max_bytes:
            raise InvalidArgument(f"message is {size} bytes; the limit is "
                                  f"{s.message_max_bytes} (message_max_bytes)", field="text")
        if len(request_id) > s.request_id_max_chars:
            raise InvalidArgument(f"request_id is at most {s.request_id_max_chars} chars",
                                  field="request_id")
        kind = secret_kind(text)
        if kind:
            raise InvalidArgument(f"message refused: the text looks like it contains {kind}; "
                                  "say where the secret is kept instead of sending it",
                                  field="text")

    async def _recipients(self, conn: asyncpg.Connection, actor: Actor, to: str) -> list[str]:
        s = self._s
        if to == "all" or to.startswith("project:"):
            project = None if to == "all" else to.removeprefix("project:")
            since = datetime.now(UTC) - timedelta(seconds=s.active_window_s)
            ids = await repo.active_peer_ids(conn, since, actor.agent_id, project,
                                             s.fanout_max + 1)
            if len(ids) > s.fanout_max:
                raise ResourceExhausted(f"{to!r} reaches more than {s.fanout_max} agents "
                                        "(fanout_max); address a project or an agent")
            if not ids:
                raise NotFound(f"no active peer matches {to!r} (active within "
                               f"{s.active_window_s} s)")
            return ids
        if await repo.get_agent(conn, to) is not None:
            return [to]
        matches = await repo.agents_by_prefix(conn, to)
        if len(matches) > 1:
            raise InvalidArgument(f"{to!r} is ambiguous: it matches {', '.join(matches)}",
                                  field="to")
        if not matches:
            raise NotFound(f"no agent {to!r} on the board; board_agents(action='list') "
                           "shows who is there")
        return matches

    async def _check_capacity(self, conn: asyncpg.Connection, actor: Actor,
                              recipients: list[str]) -> None:
        s = self._s
        recent = await repo_mail.sends_since(conn, actor.agent_id,
                                             datetime.now(UTC) - timedelta(minutes=1))
        if recent >= s.sends_per_minute:
            raise ResourceExhausted(f"send rate limit reached: {recent} sends in the last "
                                    f"minute (sends_per_minute={s.sends_per_minute}); "
                                    "retry later")
        for recipient, n in (await repo_mail.pending_counts(conn, recipients)).items():
            if n >= s.pending_max:
                raise ResourceExhausted(f"mailbox of {recipient} is full: {n} unacked "
                                        f"messages (pending_max={s.pending_max}); "
                                        "nothing was sent")

    async def send(self, actor: Actor, to: str, text: str, request_id: str) -> SendResult:
        self._check_send(to, text, request_id)
        digest, hints = body_hash(text), Hints()
        async with board_tx(self._pool, actor) as conn:
            # One sender's sends are serialised, so rate and dedup checks hold.
            await repo_mail.lock_sender(conn, actor.namespace, actor.agent_id)
            if request_id:
                earlier = await repo_mail.by_request(conn, actor.agent_id, request_id)
                if earlier:
                    if any(r.body_hmac != digest or r.addressed_to != to for r in earlier):
                        raise Conflict(f"request_id {request_id!r} was used for a different "
                                       "message; use a new request_id")
                    return SendResult([(str(r.id), r.recipient) for r in earlier], True)
            recipients = await self._recipients(conn, actor, to)
            await self._check_capacity(conn, actor, recipients)
            batch, receipts = uuid.uuid4(), []
            for recipient in recipients:
                message_id = await repo_mail.insert(conn, repo_mail.NewMessage(
                    actor.namespace, batch, actor.agent_id, actor.principal, recipient, to,
                    request_id, "mail", text, digest))
                receipts.append((str(message_id), recipient))
                await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                                 "message.send", str(message_id),
                                 {"to": to, "recipient": recipient, "body_hmac": digest,
                                  "bytes": len(text.encode()), "request_id": request_id})
                hints.add(self._hints.mail(actor.namespace, recipient),
                          {"message_id": str(message_id), "from": actor.agent_id,
                           "kind": "mail"})
        await self._hints.publish(hints)
        return SendResult(receipts, False)

    async def receive(self, actor: Actor, limit: int, cursor: str) -> Inbox:
        s = self._s
        if not 0 <= limit <= s.receive_page_max:
            raise InvalidArgument(f"limit is 1-{s.receive_page_max}", field="limit")
        limit = limit or s.receive_page_max
        after = decode_cursor(cursor) if cursor else None
        async with board_read_tx(self._pool, actor) as conn:
            rows = await repo_mail.pending(conn, actor.agent_id, after, limit)
            total = await repo_mail.pending_count(conn, actor.agent_id)
        next_cursor = (encode_cursor(rows[-1].sent_at, rows[-1].id)
                       if len(rows) == limit else "")
        return Inbox(rows, next_cursor, total)

    async def ack(self, actor: Actor, ids: list[str]) -> tuple[int, list[str]]:
        wanted = parse_ids(ids, self._s.ack_max_ids)
        async with board_tx(self._pool, actor) as conn:
            found = {r.id: r for r in await repo_mail.owners(conn, wanted)}
            for message_id in wanted:
                row = found.get(message_id)
                if row is None:
                    raise NotFound(f"no message {message_id}")
                if row.recipient != actor.agent_id:
                    raise PermissionDenied(f"message {message_id} is addressed to another "
                                           "agent; you can only ack your own mail")
            already = [str(i) for i in wanted if found[i].acked_at is not None]
            acked = await repo_mail.ack(conn, actor.agent_id, wanted)
            if acked:
                await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                                 "message.ack", "", {"ids": [str(i) for i in wanted]})
        return acked, already

    async def redact(self, actor: Actor, ids: list[str]) -> int:
        if actor.role != Role.OPERATOR:
            raise PermissionDenied("redacting mail needs the operator role; you are "
                                   f"{actor.role or Role.AGENT}")
        wanted = parse_ids(ids, self._s.ack_max_ids)
        async with board_tx(self._pool, actor) as conn:
            done = await repo_mail.redact(conn, wanted, actor.principal)
            for row in done:  # the audit keeps the hash of what was removed
                await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                                 "message.redact", str(row.id),
                                 {"body_hmac": row.body_hmac})
        return len(done)

    async def forget(self, actor: Actor, message_id: str, reason: str) -> list[str]:
        return await mail_forget.forget(self._pool, actor, message_id, reason)
