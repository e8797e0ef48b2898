"""The agent board's limits, declared once. The coordination service
enforces them (its settings default to these values) and the gateway's
argument types (the MCP schema and the REST routes) bound the same
arguments with them, so the edge and the service refuse at the same
number. An operator who changes a setting changes the service only: the
gateway keeps the declared bound."""

from __future__ import annotations

FIELD_MAX_CHARS = 200         # an agent's project, task and status
CHILDREN_MAX = 8              # subagent labels per agent
CHILD_LABEL_MAX_CHARS = 40
PARK_DEFAULT_S = 12 * 3600    # a park record without an expiry lasts this long
PARK_MAX_S = 7 * 24 * 3600    # a park record expires within this
# Seconds until a status is overdue: the service bounds it by the park limit.
EXPECT_MAX_S = PARK_MAX_S
PARK_NOTE_MAX_CHARS = 120     # a park record's needs and clear_by
PARK_RESUME_MAX_CHARS = 240
LIST_MAX = 50                 # peers one list returns
LEASE_TTL_MAX_S = 24 * 3600
MESSAGE_MAX_BYTES = 8192
RECEIVE_PAGE_MAX = 50
ACK_MAX_IDS = 50              # message ids one ack, redact or forget names
