import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AuditShowRequest(_message.Message):
    __slots__ = ("limit", "action")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    limit: int
    action: str
    def __init__(self, limit: _Optional[int] = ..., action: _Optional[str] = ...) -> None: ...

class AuditRow(_message.Message):
    __slots__ = ("id", "at", "principal", "action", "subject", "detail_json", "hash")
    ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_JSON_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    id: int
    at: _timestamp_pb2.Timestamp
    principal: str
    action: str
    subject: str
    detail_json: str
    hash: str
    def __init__(self, id: _Optional[int] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., principal: _Optional[str] = ..., action: _Optional[str] = ..., subject: _Optional[str] = ..., detail_json: _Optional[str] = ..., hash: _Optional[str] = ...) -> None: ...

class AuditShowResponse(_message.Message):
    __slots__ = ("service", "rows")
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    service: str
    rows: _containers.RepeatedCompositeFieldContainer[AuditRow]
    def __init__(self, service: _Optional[str] = ..., rows: _Optional[_Iterable[_Union[AuditRow, _Mapping]]] = ...) -> None: ...

class AuditVerifyRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AuditProblem(_message.Message):
    __slots__ = ("row_id", "what")
    ROW_ID_FIELD_NUMBER: _ClassVar[int]
    WHAT_FIELD_NUMBER: _ClassVar[int]
    row_id: int
    what: str
    def __init__(self, row_id: _Optional[int] = ..., what: _Optional[str] = ...) -> None: ...

class AuditVerifyResponse(_message.Message):
    __slots__ = ("service", "rows", "problems", "total_problems")
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    service: str
    rows: int
    problems: _containers.RepeatedCompositeFieldContainer[AuditProblem]
    total_problems: int
    def __init__(self, service: _Optional[str] = ..., rows: _Optional[int] = ..., problems: _Optional[_Iterable[_Union[AuditProblem, _Mapping]]] = ..., total_problems: _Optional[int] = ...) -> None: ...
