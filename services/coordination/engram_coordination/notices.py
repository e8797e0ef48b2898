"""Notices: mail from the board itself (e.g. "the lease you wait for is yours
to take"). They go through the same mailbox as peer mail."""

from __future__ import annotations

import uuid

import asyncpg

from engram_kit.audit import content_digest

from . import repo_mail
from .board import BOARD_SENDER, HintPublisher, Hints


def body_hash(text: str) -> str:
    """Keyed: the digest outlives a redaction of the body."""
    return content_digest(text)


async def send_notice(conn: asyncpg.Connection, namespace: str, recipient: str, hints: Hints,
                      publisher: HintPublisher, text: str) -> uuid.UUID | None:
    message_id = await repo_mail.insert(conn, repo_mail.NewMessage(
        namespace=namespace, batch_id=uuid.uuid4(), sender=BOARD_SENDER,
        sender_principal=BOARD_SENDER, recipient=recipient, addressed_to=recipient,
        request_id="", kind="notice", body=text, body_hmac=body_hash(text)))
    hints.add(publisher.mail(namespace, recipient),
              {"message_id": str(message_id), "from": BOARD_SENDER, "kind": "notice"})
    return message_id
