from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EncodeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENCODE_KIND_UNSPECIFIED: _ClassVar[EncodeKind]
    ENCODE_KIND_DOCUMENT: _ClassVar[EncodeKind]
    ENCODE_KIND_QUERY: _ClassVar[EncodeKind]
ENCODE_KIND_UNSPECIFIED: EncodeKind
ENCODE_KIND_DOCUMENT: EncodeKind
ENCODE_KIND_QUERY: EncodeKind

class EmbedRequest(_message.Message):
    __slots__ = ("texts", "kind")
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    texts: _containers.RepeatedScalarFieldContainer[str]
    kind: EncodeKind
    def __init__(self, texts: _Optional[_Iterable[str]] = ..., kind: _Optional[_Union[EncodeKind, str]] = ...) -> None: ...

class Vector(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, values: _Optional[_Iterable[float]] = ...) -> None: ...

class EmbedResponse(_message.Message):
    __slots__ = ("vectors", "model", "dimension")
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    vectors: _containers.RepeatedCompositeFieldContainer[Vector]
    model: str
    dimension: int
    def __init__(self, vectors: _Optional[_Iterable[_Union[Vector, _Mapping]]] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ...) -> None: ...

class InfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InfoResponse(_message.Message):
    __slots__ = ("backend", "model", "dimension", "normalized", "max_batch_size")
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    NORMALIZED_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    backend: str
    model: str
    dimension: int
    normalized: bool
    max_batch_size: int
    def __init__(self, backend: _Optional[str] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ..., normalized: _Optional[bool] = ..., max_batch_size: _Optional[int] = ...) -> None: ...
