import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from engram.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DreamStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DreamStatusResponse(_message.Message):
    __slots__ = ("extractor", "events_processed", "last_event_at", "consumer_connected", "model", "pending_entries", "last_run", "triggers", "pending_marks")
    EXTRACTOR_FIELD_NUMBER: _ClassVar[int]
    EVENTS_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_AT_FIELD_NUMBER: _ClassVar[int]
    CONSUMER_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PENDING_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_FIELD_NUMBER: _ClassVar[int]
    TRIGGERS_FIELD_NUMBER: _ClassVar[int]
    PENDING_MARKS_FIELD_NUMBER: _ClassVar[int]
    extractor: str
    events_processed: int
    last_event_at: _timestamp_pb2.Timestamp
    consumer_connected: bool
    model: str
    pending_entries: int
    last_run: DreamRun
    triggers: str
    pending_marks: int
    def __init__(self, extractor: _Optional[str] = ..., events_processed: _Optional[int] = ..., last_event_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., consumer_connected: _Optional[bool] = ..., model: _Optional[str] = ..., pending_entries: _Optional[int] = ..., last_run: _Optional[_Union[DreamRun, _Mapping]] = ..., triggers: _Optional[str] = ..., pending_marks: _Optional[int] = ...) -> None: ...

class DreamRunRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DreamRun(_message.Message):
    __slots__ = ("id", "status", "started_at", "finished_at", "trigger", "extractor", "model", "entries", "candidates", "facts_written", "dropped_unanchored", "quarantined", "errors", "counts_json", "proposals", "error_detail", "duration_s", "archived")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    EXTRACTOR_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    FACTS_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    DROPPED_UNANCHORED_FIELD_NUMBER: _ClassVar[int]
    QUARANTINED_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    COUNTS_JSON_FIELD_NUMBER: _ClassVar[int]
    PROPOSALS_FIELD_NUMBER: _ClassVar[int]
    ERROR_DETAIL_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    id: str
    status: str
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    trigger: str
    extractor: str
    model: str
    entries: int
    candidates: int
    facts_written: int
    dropped_unanchored: int
    quarantined: int
    errors: int
    counts_json: str
    proposals: int
    error_detail: str
    duration_s: float
    archived: int
    def __init__(self, id: _Optional[str] = ..., status: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., trigger: _Optional[str] = ..., extractor: _Optional[str] = ..., model: _Optional[str] = ..., entries: _Optional[int] = ..., candidates: _Optional[int] = ..., facts_written: _Optional[int] = ..., dropped_unanchored: _Optional[int] = ..., quarantined: _Optional[int] = ..., errors: _Optional[int] = ..., counts_json: _Optional[str] = ..., proposals: _Optional[int] = ..., error_detail: _Optional[str] = ..., duration_s: _Optional[float] = ..., archived: _Optional[int] = ...) -> None: ...

class DreamRunResponse(_message.Message):
    __slots__ = ("run_id", "run")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    run: DreamRun
    def __init__(self, run_id: _Optional[str] = ..., run: _Optional[_Union[DreamRun, _Mapping]] = ...) -> None: ...

class DreamRunsRequest(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: _common_pb2.PageRequest
    def __init__(self, page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ...) -> None: ...

class DreamRunsResponse(_message.Message):
    __slots__ = ("runs",)
    RUNS_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[DreamRun]
    def __init__(self, runs: _Optional[_Iterable[_Union[DreamRun, _Mapping]]] = ...) -> None: ...

class DreamRollbackRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class DreamRollbackResponse(_message.Message):
    __slots__ = ("run_id", "reverted", "run")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    REVERTED_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    reverted: int
    run: DreamRun
    def __init__(self, run_id: _Optional[str] = ..., reverted: _Optional[int] = ..., run: _Optional[_Union[DreamRun, _Mapping]] = ...) -> None: ...

class DreamRunDetailRequest(_message.Message):
    __slots__ = ("run_id", "offset", "limit")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    offset: int
    limit: int
    def __init__(self, run_id: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class RunFact(_message.Message):
    __slots__ = ("fact_id", "entry_id", "action", "kind")
    FACT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    fact_id: str
    entry_id: str
    action: str
    kind: str
    def __init__(self, fact_id: _Optional[str] = ..., entry_id: _Optional[str] = ..., action: _Optional[str] = ..., kind: _Optional[str] = ...) -> None: ...

class RunQuarantine(_message.Message):
    __slots__ = ("entry_id", "reason")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    reason: str
    def __init__(self, entry_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DreamRunDetailResponse(_message.Message):
    __slots__ = ("run", "entries_read", "facts_written", "quarantined", "total_entries_read", "total_facts_written", "total_quarantined")
    RUN_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_READ_FIELD_NUMBER: _ClassVar[int]
    FACTS_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    QUARANTINED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ENTRIES_READ_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FACTS_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_QUARANTINED_FIELD_NUMBER: _ClassVar[int]
    run: DreamRun
    entries_read: _containers.RepeatedScalarFieldContainer[str]
    facts_written: _containers.RepeatedCompositeFieldContainer[RunFact]
    quarantined: _containers.RepeatedCompositeFieldContainer[RunQuarantine]
    total_entries_read: int
    total_facts_written: int
    total_quarantined: int
    def __init__(self, run: _Optional[_Union[DreamRun, _Mapping]] = ..., entries_read: _Optional[_Iterable[str]] = ..., facts_written: _Optional[_Iterable[_Union[RunFact, _Mapping]]] = ..., quarantined: _Optional[_Iterable[_Union[RunQuarantine, _Mapping]]] = ..., total_entries_read: _Optional[int] = ..., total_facts_written: _Optional[int] = ..., total_quarantined: _Optional[int] = ...) -> None: ...

class DreamRollbackPreviewResponse(_message.Message):
    __slots__ = ("run_id", "allowed", "blockers", "facts_reverted", "entries_reopened", "quarantine_cleared", "proposals_withdrawn", "marks_reopened", "archived_restored", "truncated")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    BLOCKERS_FIELD_NUMBER: _ClassVar[int]
    FACTS_REVERTED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_REOPENED_FIELD_NUMBER: _ClassVar[int]
    QUARANTINE_CLEARED_FIELD_NUMBER: _ClassVar[int]
    PROPOSALS_WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    MARKS_REOPENED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_RESTORED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    allowed: bool
    blockers: _containers.RepeatedScalarFieldContainer[str]
    facts_reverted: _containers.RepeatedCompositeFieldContainer[RunFact]
    entries_reopened: _containers.RepeatedScalarFieldContainer[str]
    quarantine_cleared: _containers.RepeatedScalarFieldContainer[str]
    proposals_withdrawn: int
    marks_reopened: int
    archived_restored: int
    truncated: bool
    def __init__(self, run_id: _Optional[str] = ..., allowed: _Optional[bool] = ..., blockers: _Optional[_Iterable[str]] = ..., facts_reverted: _Optional[_Iterable[_Union[RunFact, _Mapping]]] = ..., entries_reopened: _Optional[_Iterable[str]] = ..., quarantine_cleared: _Optional[_Iterable[str]] = ..., proposals_withdrawn: _Optional[int] = ..., marks_reopened: _Optional[int] = ..., archived_restored: _Optional[int] = ..., truncated: _Optional[bool] = ...) -> None: ...

class Proposal(_message.Message):
    __slots__ = ("id", "kind", "status", "summary", "src", "relation", "dst", "evidence_quote", "run_id", "created_at", "expires_at", "decided_by", "reasoning")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SRC_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_QUOTE_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    DECIDED_BY_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    status: str
    summary: str
    src: str
    relation: str
    dst: str
    evidence_quote: str
    run_id: str
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    decided_by: str
    reasoning: str
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., status: _Optional[str] = ..., summary: _Optional[str] = ..., src: _Optional[str] = ..., relation: _Optional[str] = ..., dst: _Optional[str] = ..., evidence_quote: _Optional[str] = ..., run_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., decided_by: _Optional[str] = ..., reasoning: _Optional[str] = ...) -> None: ...

class ListProposalsRequest(_message.Message):
    __slots__ = ("status", "kind")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    status: str
    kind: str
    def __init__(self, status: _Optional[str] = ..., kind: _Optional[str] = ...) -> None: ...

class ListProposalsResponse(_message.Message):
    __slots__ = ("proposals",)
    PROPOSALS_FIELD_NUMBER: _ClassVar[int]
    proposals: _containers.RepeatedCompositeFieldContainer[Proposal]
    def __init__(self, proposals: _Optional[_Iterable[_Union[Proposal, _Mapping]]] = ...) -> None: ...

class DecideProposalRequest(_message.Message):
    __slots__ = ("proposal_id", "decision", "reasoning")
    PROPOSAL_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    proposal_id: str
    decision: str
    reasoning: str
    def __init__(self, proposal_id: _Optional[str] = ..., decision: _Optional[str] = ..., reasoning: _Optional[str] = ...) -> None: ...

class DecideProposalResponse(_message.Message):
    __slots__ = ("proposal",)
    PROPOSAL_FIELD_NUMBER: _ClassVar[int]
    proposal: Proposal
    def __init__(self, proposal: _Optional[_Union[Proposal, _Mapping]] = ...) -> None: ...

class DreamStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DreamStatsResponse(_message.Message):
    __slots__ = ("pending_entries", "pending_marks", "open_proposals")
    PENDING_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    PENDING_MARKS_FIELD_NUMBER: _ClassVar[int]
    OPEN_PROPOSALS_FIELD_NUMBER: _ClassVar[int]
    pending_entries: int
    pending_marks: int
    open_proposals: int
    def __init__(self, pending_entries: _Optional[int] = ..., pending_marks: _Optional[int] = ..., open_proposals: _Optional[int] = ...) -> None: ...
