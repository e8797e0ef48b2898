"""A mail body erased by its sender, its recipient or an operator (a body
that holds a secret): the body goes, a keyed digest stays (message row and
audit). The sender's or an operator's call erases every copy of the send;
a recipient's only its own."""

from __future__ import annotations

import uuid

import asyncpg

from engram_kit.errors import InvalidArgument, NotFound, PermissionDenied
from engram_kit.vocab import Role

from . import repo, repo_mail_forget
from .board import Actor, board_tx

REASON_MAX = 500


def _parse(message_id: str, reason: str) -> tuple[uuid.UUID, str]:
    try:
        mid = uuid.UUID(message_id.strip())
    except ValueError:
        raise InvalidArgument(f"{message_id[:40]!r} is not a message id",
                              field="mail_id") from None
    reason = reason.strip()
    if not reason or len(reason) > REASON_MAX:
        raise InvalidArgument(f"reason is 1-{REASON_MAX} characters", field="reason")
    return mid, reason


async def forget(pool: asyncpg.Pool, actor: Actor, message_id: str, reason: str) -> list[str]:
    """The ids of the copies whose body is gone (a repeat finds them gone)."""
    mid, reason = _parse(message_id, reason)
    async with board_tx(pool, actor) as conn:
        row = await repo_mail_forget.lock_message(conn, mid)
        if row is None:
            raise NotFound(f"no message {mid} in this namespace", field="mail_id")
        sender = row.sender_principal == actor.principal
        recipient = actor.agent_id == row.recipient or \
            row.recipient_principal == actor.principal
        if not (sender or recipient or actor.role == Role.OPERATOR):
            raise PermissionDenied(f"message {mid} is neither from nor to you; its sender, "
                                   "its recipient or an operator may erase it")
        whole_send = sender or actor.role == Role.OPERATOR
        done = await repo_mail_forget.erase_bodies(conn, mid, row.batch_id if whole_send
                                                   else None, actor.principal)
        for r in done:
            await repo.audit(conn, actor.namespace, actor.principal, actor.agent_id,
                             "message.forget", str(r.id),
                             {"body_hmac": r.body_hmac, "reason": reason})
    return [str(r.id) for r in done]
