from __future__ import annotations

from pydantic import Field

from engram_kit import board_limits as board
from engram_kit.settings import (
    AuditSettings,
    DatabaseSettings,
    NatsSettings,
    ServiceSettings,
)


class CoordinationSettings(ServiceSettings, DatabaseSettings, NatsSettings, AuditSettings):
    """Board limits. Every one is enforced with an error that names it."""

    service_name: str = "coordination"
    grpc_port: int = 8755
    http_port: int = 8765
    # Presence
    active_window_s: int = 3600          # peers seen within this are listed
    stale_status_s: int = 7200           # a non-empty status older than this is stale
    list_default: int = 20
    list_max: int = board.LIST_MAX
    field_max_chars: int = board.FIELD_MAX_CHARS  # project, task, status
    children_max: int = board.CHILDREN_MAX
    child_label_max_chars: int = board.CHILD_LABEL_MAX_CHARS
    park_default_s: int = board.PARK_DEFAULT_S
    park_max_s: int = board.PARK_MAX_S  # also bounds expect_seconds
    # Leases
    lease_ttl_default_s: int = 300
    lease_ttl_min_s: int = 1
    lease_ttl_max_s: int = board.LEASE_TTL_MAX_S
    lease_handoff_s: float = 30.0        # the queue head's window to take a freed lease
    lease_queue_max: int = 50
    lease_name_max_chars: int = 200
    lease_sweep_interval_s: float = 1.0
    # Mail
    message_max_bytes: int = board.MESSAGE_MAX_BYTES
    pending_max: int = 256               # unacked messages per recipient
    sends_per_minute: int = 60           # per sender agent; a fan-out counts once
    fanout_max: int = 50                 # recipients of one project:/all send
    receive_page_max: int = board.RECEIVE_PAGE_MAX
    ack_max_ids: int = board.ACK_MAX_IDS
    request_id_max_chars: int = 128
    hint_subject_prefix: str = "engram.board"
    # Tidying (sweep.py): the body of acknowledged mail is dropped after
    # mail_body_ttl_s (the row keeps its keyed digest); agents unseen for
    # agent_retire_after_s are retired; each tick, every sweep interval,
    # handles at most board_sweep_batch namespaces and rows of each kind.
    mail_body_ttl_s: int = Field(default=7 * 24 * 3600, ge=60)
    agent_retire_after_s: int = Field(default=30 * 24 * 3600, ge=3600)
    board_sweep_interval_s: float = Field(default=60.0, gt=0)
    board_sweep_batch: int = Field(default=500, ge=1, le=10_000)
