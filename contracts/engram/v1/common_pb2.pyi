import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CallerContext(_message.Message):
    __slots__ = ("principal", "namespace", "client_id", "session_id", "request_id")
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    principal: str
    namespace: str
    client_id: str
    session_id: str
    request_id: str
    def __init__(self, principal: _Optional[str] = ..., namespace: _Optional[str] = ..., client_id: _Optional[str] = ..., session_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class PageRequest(_message.Message):
    __slots__ = ("limit", "cursor")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    limit: int
    cursor: str
    def __init__(self, limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class PageInfo(_message.Message):
    __slots__ = ("next_cursor",)
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    next_cursor: str
    def __init__(self, next_cursor: _Optional[str] = ...) -> None: ...

class ErrorDetail(_message.Message):
    __slots__ = ("code", "message", "field")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    field: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., field: _Optional[str] = ...) -> None: ...

class ForgetByWriterRequest(_message.Message):
    __slots__ = ("principal", "since", "until", "reason", "dry_run")
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    principal: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    reason: str
    dry_run: bool
    def __init__(self, principal: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class ForgetByWriterResponse(_message.Message):
    __slots__ = ("ids", "more", "limit")
    IDS_FIELD_NUMBER: _ClassVar[int]
    MORE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    more: bool
    limit: int
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., more: _Optional[bool] = ..., limit: _Optional[int] = ...) -> None: ...

class QueryVector(_message.Message):
    __slots__ = ("vector_f32le", "model", "dimension")
    VECTOR_F32LE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    vector_f32le: bytes
    model: str
    dimension: int
    def __init__(self, vector_f32le: _Optional[bytes] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ...) -> None: ...
