import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Finding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINDING_UNSPECIFIED: _ClassVar[Finding]
    FINDING_NEW: _ClassVar[Finding]
    FINDING_RESTATEMENT: _ClassVar[Finding]
    FINDING_PARAPHRASE: _ClassVar[Finding]
    FINDING_UPDATE: _ClassVar[Finding]
    FINDING_CONFLICT: _ClassVar[Finding]
FINDING_UNSPECIFIED: Finding
FINDING_NEW: Finding
FINDING_RESTATEMENT: Finding
FINDING_PARAPHRASE: Finding
FINDING_UPDATE: Finding
FINDING_CONFLICT: Finding

class Entry(_message.Message):
    __slots__ = ("id", "text", "source", "tags", "origin", "episode", "status", "created_at", "valid_from", "writer_principal", "embedded")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    WRITER_PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    EMBEDDED_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    source: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    origin: str
    episode: str
    status: str
    created_at: _timestamp_pb2.Timestamp
    valid_from: _timestamp_pb2.Timestamp
    writer_principal: str
    embedded: bool
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ..., source: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., origin: _Optional[str] = ..., episode: _Optional[str] = ..., status: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., writer_principal: _Optional[str] = ..., embedded: _Optional[bool] = ...) -> None: ...

class StoreRequest(_message.Message):
    __slots__ = ("text", "source", "tags", "origin", "episode", "valid_from")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    text: str
    source: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    origin: str
    episode: str
    valid_from: _timestamp_pb2.Timestamp
    def __init__(self, text: _Optional[str] = ..., source: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., origin: _Optional[str] = ..., episode: _Optional[str] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class StoreResponse(_message.Message):
    __slots__ = ("id", "finding", "related", "superseded", "embedded", "entry")
    ID_FIELD_NUMBER: _ClassVar[int]
    FINDING_FIELD_NUMBER: _ClassVar[int]
    RELATED_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_FIELD_NUMBER: _ClassVar[int]
    EMBEDDED_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    id: str
    finding: Finding
    related: _containers.RepeatedScalarFieldContainer[str]
    superseded: _containers.RepeatedScalarFieldContainer[str]
    embedded: bool
    entry: Entry
    def __init__(self, id: _Optional[str] = ..., finding: _Optional[_Union[Finding, str]] = ..., related: _Optional[_Iterable[str]] = ..., superseded: _Optional[_Iterable[str]] = ..., embedded: _Optional[bool] = ..., entry: _Optional[_Union[Entry, _Mapping]] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("query", "top_k", "tags", "source", "since", "until", "explain")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    query: str
    top_k: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    source: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    explain: bool
    def __init__(self, query: _Optional[str] = ..., top_k: _Optional[int] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., explain: _Optional[bool] = ...) -> None: ...

class RankTrace(_message.Message):
    __slots__ = ("dense_rank", "lexical_rank", "dense_distance", "lexical_score")
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_RANK_FIELD_NUMBER: _ClassVar[int]
    DENSE_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_SCORE_FIELD_NUMBER: _ClassVar[int]
    dense_rank: int
    lexical_rank: int
    dense_distance: float
    lexical_score: float
    def __init__(self, dense_rank: _Optional[int] = ..., lexical_rank: _Optional[int] = ..., dense_distance: _Optional[float] = ..., lexical_score: _Optional[float] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("entry", "score", "label", "trace")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    entry: Entry
    score: float
    label: str
    trace: RankTrace
    def __init__(self, entry: _Optional[_Union[Entry, _Mapping]] = ..., score: _Optional[float] = ..., label: _Optional[str] = ..., trace: _Optional[_Union[RankTrace, _Mapping]] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("hits", "mode", "note")
    HITS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    mode: str
    note: str
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., mode: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...
