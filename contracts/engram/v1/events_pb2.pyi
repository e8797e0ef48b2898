import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventEnvelope(_message.Message):
    __slots__ = ("event_id", "type", "namespace", "principal", "occurred_at", "entry_stored", "entries_forgotten", "fact_written", "outcome_recorded")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRY_STORED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    FACT_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_RECORDED_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    type: str
    namespace: str
    principal: str
    occurred_at: _timestamp_pb2.Timestamp
    entry_stored: EntryStored
    entries_forgotten: EntriesForgotten
    fact_written: FactWritten
    outcome_recorded: OutcomeRecorded
    def __init__(self, event_id: _Optional[str] = ..., type: _Optional[str] = ..., namespace: _Optional[str] = ..., principal: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entry_stored: _Optional[_Union[EntryStored, _Mapping]] = ..., entries_forgotten: _Optional[_Union[EntriesForgotten, _Mapping]] = ..., fact_written: _Optional[_Union[FactWritten, _Mapping]] = ..., outcome_recorded: _Optional[_Union[OutcomeRecorded, _Mapping]] = ...) -> None: ...

class EntryStored(_message.Message):
    __slots__ = ("entry_id", "finding", "superseded", "embedded", "contested")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    FINDING_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_FIELD_NUMBER: _ClassVar[int]
    EMBEDDED_FIELD_NUMBER: _ClassVar[int]
    CONTESTED_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    finding: str
    superseded: _containers.RepeatedScalarFieldContainer[str]
    embedded: bool
    contested: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, entry_id: _Optional[str] = ..., finding: _Optional[str] = ..., superseded: _Optional[_Iterable[str]] = ..., embedded: _Optional[bool] = ..., contested: _Optional[_Iterable[str]] = ...) -> None: ...

class EntriesForgotten(_message.Message):
    __slots__ = ("entry_ids", "reason")
    ENTRY_IDS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_ids: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    def __init__(self, entry_ids: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ...) -> None: ...

class FactWritten(_message.Message):
    __slots__ = ("fact_id", "entity", "attribute", "action", "batch")
    FACT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    fact_id: str
    entity: str
    attribute: str
    action: str
    batch: str
    def __init__(self, fact_id: _Optional[str] = ..., entity: _Optional[str] = ..., attribute: _Optional[str] = ..., action: _Optional[str] = ..., batch: _Optional[str] = ...) -> None: ...

class OutcomeRecorded(_message.Message):
    __slots__ = ("outcome_id", "outcome", "lesson_id")
    OUTCOME_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    LESSON_ID_FIELD_NUMBER: _ClassVar[int]
    outcome_id: str
    outcome: str
    lesson_id: str
    def __init__(self, outcome_id: _Optional[str] = ..., outcome: _Optional[str] = ..., lesson_id: _Optional[str] = ...) -> None: ...
