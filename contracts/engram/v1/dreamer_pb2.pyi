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
    __slots__ = ("extractor", "events_processed", "last_event_at", "consumer_connected")
    EXTRACTOR_FIELD_NUMBER: _ClassVar[int]
    EVENTS_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_AT_FIELD_NUMBER: _ClassVar[int]
    CONSUMER_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    extractor: str
    events_processed: int
    last_event_at: _timestamp_pb2.Timestamp
    consumer_connected: bool
    def __init__(self, extractor: _Optional[str] = ..., events_processed: _Optional[int] = ..., last_event_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., consumer_connected: _Optional[bool] = ...) -> None: ...

class DreamRunRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DreamRunResponse(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class DreamRunsRequest(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: _common_pb2.PageRequest
    def __init__(self, page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ...) -> None: ...

class DreamRun(_message.Message):
    __slots__ = ("id", "status", "started_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    status: str
    started_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., status: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("run_id", "reverted")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    REVERTED_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    reverted: int
    def __init__(self, run_id: _Optional[str] = ..., reverted: _Optional[int] = ...) -> None: ...
