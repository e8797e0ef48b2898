from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EncodeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENCODE_KIND_UNSPECIFIED: _ClassVar[EncodeKind]
    ENCODE_KIND_DOCUMENT: _ClassVar[EncodeKind]
    ENCODE_KIND_QUERY: _ClassVar[EncodeKind]

class EmbedPriority(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EMBED_PRIORITY_UNSPECIFIED: _ClassVar[EmbedPriority]
    EMBED_PRIORITY_INTERACTIVE: _ClassVar[EmbedPriority]
    EMBED_PRIORITY_BULK: _ClassVar[EmbedPriority]
ENCODE_KIND_UNSPECIFIED: EncodeKind
ENCODE_KIND_DOCUMENT: EncodeKind
ENCODE_KIND_QUERY: EncodeKind
EMBED_PRIORITY_UNSPECIFIED: EmbedPriority
EMBED_PRIORITY_INTERACTIVE: EmbedPriority
EMBED_PRIORITY_BULK: EmbedPriority

class EmbedRequest(_message.Message):
    __slots__ = ("texts", "kind", "priority")
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    texts: _containers.RepeatedScalarFieldContainer[str]
    kind: EncodeKind
    priority: EmbedPriority
    def __init__(self, texts: _Optional[_Iterable[str]] = ..., kind: _Optional[_Union[EncodeKind, str]] = ..., priority: _Optional[_Union[EmbedPriority, str]] = ...) -> None: ...

class EmbedResponse(_message.Message):
    __slots__ = ("vectors_f32le", "count", "model", "dimension")
    VECTORS_F32LE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    vectors_f32le: bytes
    count: int
    model: str
    dimension: int
    def __init__(self, vectors_f32le: _Optional[bytes] = ..., count: _Optional[int] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ...) -> None: ...

class InfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InfoResponse(_message.Message):
    __slots__ = ("backend", "model", "dimension", "normalized", "max_batch_size", "max_texts_per_request", "max_queue_texts", "query_prefix", "document_prefix")
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    NORMALIZED_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_TEXTS_PER_REQUEST_FIELD_NUMBER: _ClassVar[int]
    MAX_QUEUE_TEXTS_FIELD_NUMBER: _ClassVar[int]
    QUERY_PREFIX_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_PREFIX_FIELD_NUMBER: _ClassVar[int]
    backend: str
    model: str
    dimension: int
    normalized: bool
    max_batch_size: int
    max_texts_per_request: int
    max_queue_texts: int
    query_prefix: str
    document_prefix: str
    def __init__(self, backend: _Optional[str] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ..., normalized: _Optional[bool] = ..., max_batch_size: _Optional[int] = ..., max_texts_per_request: _Optional[int] = ..., max_queue_texts: _Optional[int] = ..., query_prefix: _Optional[str] = ..., document_prefix: _Optional[str] = ...) -> None: ...
