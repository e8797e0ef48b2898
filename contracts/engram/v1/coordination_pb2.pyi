import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ToolsetTier(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOLSET_TIER_UNSPECIFIED: _ClassVar[ToolsetTier]
    TOOLSET_TIER_MINIMAL: _ClassVar[ToolsetTier]
    TOOLSET_TIER_CORE: _ClassVar[ToolsetTier]
    TOOLSET_TIER_FULL: _ClassVar[ToolsetTier]
TOOLSET_TIER_UNSPECIFIED: ToolsetTier
TOOLSET_TIER_MINIMAL: ToolsetTier
TOOLSET_TIER_CORE: ToolsetTier
TOOLSET_TIER_FULL: ToolsetTier

class Child(_message.Message):
    __slots__ = ("label", "since")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    label: str
    since: _timestamp_pb2.Timestamp
    def __init__(self, label: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Park(_message.Message):
    __slots__ = ("reason", "needs", "clear_by", "resume", "expires_at", "set_at")
    REASON_FIELD_NUMBER: _ClassVar[int]
    NEEDS_FIELD_NUMBER: _ClassVar[int]
    CLEAR_BY_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    SET_AT_FIELD_NUMBER: _ClassVar[int]
    reason: str
    needs: str
    clear_by: str
    resume: str
    expires_at: _timestamp_pb2.Timestamp
    set_at: _timestamp_pb2.Timestamp
    def __init__(self, reason: _Optional[str] = ..., needs: _Optional[str] = ..., clear_by: _Optional[str] = ..., resume: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., set_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Agent(_message.Message):
    __slots__ = ("id", "principal", "project", "task", "status", "status_at", "status_age_seconds", "stale", "expect_at", "overdue", "children", "park", "last_seen", "leases", "is_self")
    ID_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STATUS_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_AGE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    EXPECT_AT_FIELD_NUMBER: _ClassVar[int]
    OVERDUE_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    PARK_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    LEASES_FIELD_NUMBER: _ClassVar[int]
    IS_SELF_FIELD_NUMBER: _ClassVar[int]
    id: str
    principal: str
    project: str
    task: str
    status: str
    status_at: _timestamp_pb2.Timestamp
    status_age_seconds: int
    stale: bool
    expect_at: _timestamp_pb2.Timestamp
    overdue: bool
    children: _containers.RepeatedCompositeFieldContainer[Child]
    park: Park
    last_seen: _timestamp_pb2.Timestamp
    leases: _containers.RepeatedScalarFieldContainer[str]
    is_self: bool
    def __init__(self, id: _Optional[str] = ..., principal: _Optional[str] = ..., project: _Optional[str] = ..., task: _Optional[str] = ..., status: _Optional[str] = ..., status_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status_age_seconds: _Optional[int] = ..., stale: _Optional[bool] = ..., expect_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., overdue: _Optional[bool] = ..., children: _Optional[_Iterable[_Union[Child, _Mapping]]] = ..., park: _Optional[_Union[Park, _Mapping]] = ..., last_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., leases: _Optional[_Iterable[str]] = ..., is_self: _Optional[bool] = ...) -> None: ...

class UpdateAgentRequest(_message.Message):
    __slots__ = ("project", "task", "status", "expect_seconds", "set_children", "children")
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EXPECT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SET_CHILDREN_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    project: str
    task: str
    status: str
    expect_seconds: int
    set_children: bool
    children: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, project: _Optional[str] = ..., task: _Optional[str] = ..., status: _Optional[str] = ..., expect_seconds: _Optional[int] = ..., set_children: _Optional[bool] = ..., children: _Optional[_Iterable[str]] = ...) -> None: ...

class ParkRequest(_message.Message):
    __slots__ = ("reason", "needs", "clear_by", "resume", "expires_in_seconds")
    REASON_FIELD_NUMBER: _ClassVar[int]
    NEEDS_FIELD_NUMBER: _ClassVar[int]
    CLEAR_BY_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    reason: str
    needs: str
    clear_by: str
    resume: str
    expires_in_seconds: int
    def __init__(self, reason: _Optional[str] = ..., needs: _Optional[str] = ..., clear_by: _Optional[str] = ..., resume: _Optional[str] = ..., expires_in_seconds: _Optional[int] = ...) -> None: ...

class AgentReply(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: Agent
    def __init__(self, agent: _Optional[_Union[Agent, _Mapping]] = ...) -> None: ...

class ListAgentsRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class ListAgentsResponse(_message.Message):
    __slots__ = ("agents", "older_count", "truncated_count", "self", "active_window_seconds")
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    OLDER_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_COUNT_FIELD_NUMBER: _ClassVar[int]
    SELF_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_WINDOW_SECONDS_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.RepeatedCompositeFieldContainer[Agent]
    older_count: int
    truncated_count: int
    self: Agent
    active_window_seconds: int
    def __init__(self_, agents: _Optional[_Iterable[_Union[Agent, _Mapping]]] = ..., older_count: _Optional[int] = ..., truncated_count: _Optional[int] = ..., self: _Optional[_Union[Agent, _Mapping]] = ..., active_window_seconds: _Optional[int] = ...) -> None: ...

class Lease(_message.Message):
    __slots__ = ("name", "holder", "fencing_token", "expires_at", "queue", "offered_to", "offered_until")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    QUEUE_FIELD_NUMBER: _ClassVar[int]
    OFFERED_TO_FIELD_NUMBER: _ClassVar[int]
    OFFERED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    holder: str
    fencing_token: int
    expires_at: _timestamp_pb2.Timestamp
    queue: _containers.RepeatedScalarFieldContainer[str]
    offered_to: str
    offered_until: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., holder: _Optional[str] = ..., fencing_token: _Optional[int] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., queue: _Optional[_Iterable[str]] = ..., offered_to: _Optional[str] = ..., offered_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClaimLeaseRequest(_message.Message):
    __slots__ = ("name", "ttl_seconds", "no_queue")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    NO_QUEUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    ttl_seconds: int
    no_queue: bool
    def __init__(self, name: _Optional[str] = ..., ttl_seconds: _Optional[int] = ..., no_queue: _Optional[bool] = ...) -> None: ...

class LeaseRequest(_message.Message):
    __slots__ = ("name", "ttl_seconds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    ttl_seconds: int
    def __init__(self, name: _Optional[str] = ..., ttl_seconds: _Optional[int] = ...) -> None: ...

class LeaseReply(_message.Message):
    __slots__ = ("granted", "renewed", "fencing_token", "holder", "expires_at", "queue_position", "lease", "note")
    GRANTED_FIELD_NUMBER: _ClassVar[int]
    RENEWED_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    QUEUE_POSITION_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    granted: bool
    renewed: bool
    fencing_token: int
    holder: str
    expires_at: _timestamp_pb2.Timestamp
    queue_position: int
    lease: Lease
    note: str
    def __init__(self, granted: _Optional[bool] = ..., renewed: _Optional[bool] = ..., fencing_token: _Optional[int] = ..., holder: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., queue_position: _Optional[int] = ..., lease: _Optional[_Union[Lease, _Mapping]] = ..., note: _Optional[str] = ...) -> None: ...

class ListLeasesRequest(_message.Message):
    __slots__ = ("name_prefix",)
    NAME_PREFIX_FIELD_NUMBER: _ClassVar[int]
    name_prefix: str
    def __init__(self, name_prefix: _Optional[str] = ...) -> None: ...

class ListLeasesResponse(_message.Message):
    __slots__ = ("leases",)
    LEASES_FIELD_NUMBER: _ClassVar[int]
    leases: _containers.RepeatedCompositeFieldContainer[Lease]
    def __init__(self, leases: _Optional[_Iterable[_Union[Lease, _Mapping]]] = ...) -> None: ...

class SendMessageRequest(_message.Message):
    __slots__ = ("to", "text", "request_id")
    TO_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    to: str
    text: str
    request_id: str
    def __init__(self, to: _Optional[str] = ..., text: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class Receipt(_message.Message):
    __slots__ = ("message_id", "recipient")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    recipient: str
    def __init__(self, message_id: _Optional[str] = ..., recipient: _Optional[str] = ...) -> None: ...

class SendMessageResponse(_message.Message):
    __slots__ = ("receipts", "duplicate")
    RECEIPTS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    receipts: _containers.RepeatedCompositeFieldContainer[Receipt]
    duplicate: bool
    def __init__(self, receipts: _Optional[_Iterable[_Union[Receipt, _Mapping]]] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class MailMessage(_message.Message):
    __slots__ = ("id", "sender", "sender_principal", "text", "sent_at", "kind", "addressed_to", "redacted", "request_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    SENDER_PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ADDRESSED_TO_FIELD_NUMBER: _ClassVar[int]
    REDACTED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    sender: str
    sender_principal: str
    text: str
    sent_at: _timestamp_pb2.Timestamp
    kind: str
    addressed_to: str
    redacted: bool
    request_id: str
    def __init__(self, id: _Optional[str] = ..., sender: _Optional[str] = ..., sender_principal: _Optional[str] = ..., text: _Optional[str] = ..., sent_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., kind: _Optional[str] = ..., addressed_to: _Optional[str] = ..., redacted: _Optional[bool] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReceiveMessagesRequest(_message.Message):
    __slots__ = ("limit", "cursor")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    limit: int
    cursor: str
    def __init__(self, limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class ReceiveMessagesResponse(_message.Message):
    __slots__ = ("messages", "next_cursor", "pending")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[MailMessage]
    next_cursor: str
    pending: int
    def __init__(self, messages: _Optional[_Iterable[_Union[MailMessage, _Mapping]]] = ..., next_cursor: _Optional[str] = ..., pending: _Optional[int] = ...) -> None: ...

class AckMessagesRequest(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class AckMessagesResponse(_message.Message):
    __slots__ = ("acked", "already_acked")
    ACKED_FIELD_NUMBER: _ClassVar[int]
    ALREADY_ACKED_FIELD_NUMBER: _ClassVar[int]
    acked: int
    already_acked: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, acked: _Optional[int] = ..., already_acked: _Optional[_Iterable[str]] = ...) -> None: ...

class RedactMessagesRequest(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class RedactMessagesResponse(_message.Message):
    __slots__ = ("redacted",)
    REDACTED_FIELD_NUMBER: _ClassVar[int]
    redacted: int
    def __init__(self, redacted: _Optional[int] = ...) -> None: ...

class GetToolsetRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetToolsetRequest(_message.Message):
    __slots__ = ("tier",)
    TIER_FIELD_NUMBER: _ClassVar[int]
    tier: ToolsetTier
    def __init__(self, tier: _Optional[_Union[ToolsetTier, str]] = ...) -> None: ...

class ToolsetReply(_message.Message):
    __slots__ = ("tier",)
    TIER_FIELD_NUMBER: _ClassVar[int]
    tier: ToolsetTier
    def __init__(self, tier: _Optional[_Union[ToolsetTier, str]] = ...) -> None: ...

class ForgetMessageRequest(_message.Message):
    __slots__ = ("id", "reason")
    ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    id: str
    reason: str
    def __init__(self, id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ForgetMessageResponse(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class BoardStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BoardStatsResponse(_message.Message):
    __slots__ = ("agents", "agents_active", "leases_held", "lease_waiters", "mail_pending", "mail_acked_bodies")
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    AGENTS_ACTIVE_FIELD_NUMBER: _ClassVar[int]
    LEASES_HELD_FIELD_NUMBER: _ClassVar[int]
    LEASE_WAITERS_FIELD_NUMBER: _ClassVar[int]
    MAIL_PENDING_FIELD_NUMBER: _ClassVar[int]
    MAIL_ACKED_BODIES_FIELD_NUMBER: _ClassVar[int]
    agents: int
    agents_active: int
    leases_held: int
    lease_waiters: int
    mail_pending: int
    mail_acked_bodies: int
    def __init__(self, agents: _Optional[int] = ..., agents_active: _Optional[int] = ..., leases_held: _Optional[int] = ..., lease_waiters: _Optional[int] = ..., mail_pending: _Optional[int] = ..., mail_acked_bodies: _Optional[int] = ...) -> None: ...
