import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from engram.v1 import common_pb2 as _common_pb2
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
    __slots__ = ("text", "source", "tags", "origin", "episode", "valid_from", "supersedes", "reason")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    text: str
    source: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    origin: str
    episode: str
    valid_from: _timestamp_pb2.Timestamp
    supersedes: str
    reason: str
    def __init__(self, text: _Optional[str] = ..., source: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., origin: _Optional[str] = ..., episode: _Optional[str] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., supersedes: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class Tombstone(_message.Message):
    __slots__ = ("id", "reason", "forgotten_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FORGOTTEN_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    reason: str
    forgotten_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., reason: _Optional[str] = ..., forgotten_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class StoreResponse(_message.Message):
    __slots__ = ("id", "finding", "related", "superseded", "embedded", "entry", "contested_with", "reasserts_forgotten")
    ID_FIELD_NUMBER: _ClassVar[int]
    FINDING_FIELD_NUMBER: _ClassVar[int]
    RELATED_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_FIELD_NUMBER: _ClassVar[int]
    EMBEDDED_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    CONTESTED_WITH_FIELD_NUMBER: _ClassVar[int]
    REASSERTS_FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    id: str
    finding: Finding
    related: _containers.RepeatedScalarFieldContainer[str]
    superseded: _containers.RepeatedScalarFieldContainer[str]
    embedded: bool
    entry: Entry
    contested_with: _containers.RepeatedScalarFieldContainer[str]
    reasserts_forgotten: Tombstone
    def __init__(self, id: _Optional[str] = ..., finding: _Optional[_Union[Finding, str]] = ..., related: _Optional[_Iterable[str]] = ..., superseded: _Optional[_Iterable[str]] = ..., embedded: _Optional[bool] = ..., entry: _Optional[_Union[Entry, _Mapping]] = ..., contested_with: _Optional[_Iterable[str]] = ..., reasserts_forgotten: _Optional[_Union[Tombstone, _Mapping]] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("query", "top_k", "tags", "source", "since", "until", "explain", "episode", "as_of", "include_history", "query_vector")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_HISTORY_FIELD_NUMBER: _ClassVar[int]
    QUERY_VECTOR_FIELD_NUMBER: _ClassVar[int]
    query: str
    top_k: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    source: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    explain: bool
    episode: str
    as_of: _timestamp_pb2.Timestamp
    include_history: bool
    query_vector: _common_pb2.QueryVector
    def __init__(self, query: _Optional[str] = ..., top_k: _Optional[int] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., explain: _Optional[bool] = ..., episode: _Optional[str] = ..., as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., include_history: _Optional[bool] = ..., query_vector: _Optional[_Union[_common_pb2.QueryVector, _Mapping]] = ...) -> None: ...

class RankTrace(_message.Message):
    __slots__ = ("dense_rank", "lexical_rank", "dense_distance", "lexical_score", "rrf_score", "context_lift", "episode_lift", "term_lift", "identifier_lift", "time_lift")
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_RANK_FIELD_NUMBER: _ClassVar[int]
    DENSE_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_SCORE_FIELD_NUMBER: _ClassVar[int]
    RRF_SCORE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_LIFT_FIELD_NUMBER: _ClassVar[int]
    EPISODE_LIFT_FIELD_NUMBER: _ClassVar[int]
    TERM_LIFT_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_LIFT_FIELD_NUMBER: _ClassVar[int]
    TIME_LIFT_FIELD_NUMBER: _ClassVar[int]
    dense_rank: int
    lexical_rank: int
    dense_distance: float
    lexical_score: float
    rrf_score: float
    context_lift: float
    episode_lift: float
    term_lift: float
    identifier_lift: float
    time_lift: float
    def __init__(self, dense_rank: _Optional[int] = ..., lexical_rank: _Optional[int] = ..., dense_distance: _Optional[float] = ..., lexical_score: _Optional[float] = ..., rrf_score: _Optional[float] = ..., context_lift: _Optional[float] = ..., episode_lift: _Optional[float] = ..., term_lift: _Optional[float] = ..., identifier_lift: _Optional[float] = ..., time_lift: _Optional[float] = ...) -> None: ...

class QueryTerm(_message.Message):
    __slots__ = ("lexeme", "rows", "used")
    LEXEME_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    lexeme: str
    rows: int
    used: bool
    def __init__(self, lexeme: _Optional[str] = ..., rows: _Optional[int] = ..., used: _Optional[bool] = ...) -> None: ...

class DroppedHit(_message.Message):
    __slots__ = ("id", "text", "reason", "score")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    reason: str
    score: float
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ..., reason: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class SearchTrace(_message.Message):
    __slots__ = ("terms", "dense_candidates", "lexical_candidates", "fusion", "dropped")
    TERMS_FIELD_NUMBER: _ClassVar[int]
    DENSE_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    FUSION_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    terms: _containers.RepeatedCompositeFieldContainer[QueryTerm]
    dense_candidates: int
    lexical_candidates: int
    fusion: str
    dropped: _containers.RepeatedCompositeFieldContainer[DroppedHit]
    def __init__(self, terms: _Optional[_Iterable[_Union[QueryTerm, _Mapping]]] = ..., dense_candidates: _Optional[int] = ..., lexical_candidates: _Optional[int] = ..., fusion: _Optional[str] = ..., dropped: _Optional[_Iterable[_Union[DroppedHit, _Mapping]]] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("entry", "score", "label", "trace", "contested_with")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    CONTESTED_WITH_FIELD_NUMBER: _ClassVar[int]
    entry: Entry
    score: float
    label: str
    trace: RankTrace
    contested_with: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, entry: _Optional[_Union[Entry, _Mapping]] = ..., score: _Optional[float] = ..., label: _Optional[str] = ..., trace: _Optional[_Union[RankTrace, _Mapping]] = ..., contested_with: _Optional[_Iterable[str]] = ...) -> None: ...

class DocumentHit(_message.Message):
    __slots__ = ("document_id", "chunk_id", "ordinal", "text", "source", "title", "score", "created_at")
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    chunk_id: str
    ordinal: int
    text: str
    source: str
    title: str
    score: float
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, document_id: _Optional[str] = ..., chunk_id: _Optional[str] = ..., ordinal: _Optional[int] = ..., text: _Optional[str] = ..., source: _Optional[str] = ..., title: _Optional[str] = ..., score: _Optional[float] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("hits", "documents", "layer", "mode", "note", "trace", "low_confidence")
    HITS_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    LAYER_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    LOW_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    documents: _containers.RepeatedCompositeFieldContainer[DocumentHit]
    layer: str
    mode: str
    note: str
    trace: SearchTrace
    low_confidence: bool
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., documents: _Optional[_Iterable[_Union[DocumentHit, _Mapping]]] = ..., layer: _Optional[str] = ..., mode: _Optional[str] = ..., note: _Optional[str] = ..., trace: _Optional[_Union[SearchTrace, _Mapping]] = ..., low_confidence: _Optional[bool] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("id", "peek")
    ID_FIELD_NUMBER: _ClassVar[int]
    PEEK_FIELD_NUMBER: _ClassVar[int]
    id: str
    peek: bool
    def __init__(self, id: _Optional[str] = ..., peek: _Optional[bool] = ...) -> None: ...

class Version(_message.Message):
    __slots__ = ("version", "text", "changed_by", "reason", "status", "created_at")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CHANGED_BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    version: int
    text: str
    changed_by: str
    reason: str
    status: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, version: _Optional[int] = ..., text: _Optional[str] = ..., changed_by: _Optional[str] = ..., reason: _Optional[str] = ..., status: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Link(_message.Message):
    __slots__ = ("src", "dst", "kind")
    SRC_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    src: str
    dst: str
    kind: str
    def __init__(self, src: _Optional[str] = ..., dst: _Optional[str] = ..., kind: _Optional[str] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("entry", "versions", "links", "label", "superseded_by", "confirmations")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_BY_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATIONS_FIELD_NUMBER: _ClassVar[int]
    entry: Entry
    versions: _containers.RepeatedCompositeFieldContainer[Version]
    links: _containers.RepeatedCompositeFieldContainer[Link]
    label: str
    superseded_by: str
    confirmations: int
    def __init__(self, entry: _Optional[_Union[Entry, _Mapping]] = ..., versions: _Optional[_Iterable[_Union[Version, _Mapping]]] = ..., links: _Optional[_Iterable[_Union[Link, _Mapping]]] = ..., label: _Optional[str] = ..., superseded_by: _Optional[str] = ..., confirmations: _Optional[int] = ...) -> None: ...

class RecentRequest(_message.Message):
    __slots__ = ("n", "tags", "source")
    N_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    n: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    source: str
    def __init__(self, n: _Optional[int] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ...) -> None: ...

class RecentResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[Entry]
    def __init__(self, entries: _Optional[_Iterable[_Union[Entry, _Mapping]]] = ...) -> None: ...

class SupersedeRequest(_message.Message):
    __slots__ = ("entry_id", "new_text", "reason")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    NEW_TEXT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    new_text: str
    reason: str
    def __init__(self, entry_id: _Optional[str] = ..., new_text: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ForgetRequest(_message.Message):
    __slots__ = ("entry_id", "tags", "source", "before", "reason")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    source: str
    before: _timestamp_pb2.Timestamp
    reason: str
    def __init__(self, entry_id: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class ForgetResponse(_message.Message):
    __slots__ = ("forgotten", "tombstones")
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    TOMBSTONES_FIELD_NUMBER: _ClassVar[int]
    forgotten: _containers.RepeatedScalarFieldContainer[str]
    tombstones: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, forgotten: _Optional[_Iterable[str]] = ..., tombstones: _Optional[_Iterable[str]] = ...) -> None: ...

class ReinforceRequest(_message.Message):
    __slots__ = ("entry_id",)
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    def __init__(self, entry_id: _Optional[str] = ...) -> None: ...

class ReinforceResponse(_message.Message):
    __slots__ = ("id", "confirmations")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    confirmations: int
    def __init__(self, id: _Optional[str] = ..., confirmations: _Optional[int] = ...) -> None: ...

class ArchiveStaleRequest(_message.Message):
    __slots__ = ("unused_for_s", "limit", "batch")
    UNUSED_FOR_S_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    unused_for_s: float
    limit: int
    batch: str
    def __init__(self, unused_for_s: _Optional[float] = ..., limit: _Optional[int] = ..., batch: _Optional[str] = ...) -> None: ...

class ArchiveStaleResponse(_message.Message):
    __slots__ = ("archived",)
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    archived: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, archived: _Optional[_Iterable[str]] = ...) -> None: ...

class UnarchiveRequest(_message.Message):
    __slots__ = ("batch",)
    BATCH_FIELD_NUMBER: _ClassVar[int]
    batch: str
    def __init__(self, batch: _Optional[str] = ...) -> None: ...

class UnarchiveResponse(_message.Message):
    __slots__ = ("restored",)
    RESTORED_FIELD_NUMBER: _ClassVar[int]
    restored: int
    def __init__(self, restored: _Optional[int] = ...) -> None: ...

class RescueRequest(_message.Message):
    __slots__ = ("entry_id", "reason")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    reason: str
    def __init__(self, entry_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RescueResponse(_message.Message):
    __slots__ = ("id", "was_archived", "rescued_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    WAS_ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    RESCUED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    was_archived: bool
    rescued_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., was_archived: _Optional[bool] = ..., rescued_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class EpisodeRequest(_message.Message):
    __slots__ = ("title",)
    TITLE_FIELD_NUMBER: _ClassVar[int]
    title: str
    def __init__(self, title: _Optional[str] = ...) -> None: ...

class EpisodeReply(_message.Message):
    __slots__ = ("id", "title", "parent_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    parent_id: str
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., parent_id: _Optional[str] = ...) -> None: ...

class EpisodeSummaryRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class EpisodeSummaryReply(_message.Message):
    __slots__ = ("id", "title", "summary", "started_at", "ended_at", "entries", "pruned", "session_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    PRUNED_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    summary: str
    started_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    entries: int
    pruned: bool
    session_id: str
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., summary: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entries: _Optional[int] = ..., pruned: _Optional[bool] = ..., session_id: _Optional[str] = ...) -> None: ...

class BriefingRequest(_message.Message):
    __slots__ = ("token_budget",)
    TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    token_budget: int
    def __init__(self, token_budget: _Optional[int] = ...) -> None: ...

class EpisodeRecap(_message.Message):
    __slots__ = ("id", "title", "parent_id", "started_at", "ended_at", "entries", "latest", "started_by")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    STARTED_BY_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    parent_id: str
    started_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    entries: int
    latest: _containers.RepeatedScalarFieldContainer[str]
    started_by: str
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., parent_id: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entries: _Optional[int] = ..., latest: _Optional[_Iterable[str]] = ..., started_by: _Optional[str] = ...) -> None: ...

class BriefingResponse(_message.Message):
    __slots__ = ("episodes", "truncated")
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    episodes: _containers.RepeatedCompositeFieldContainer[EpisodeRecap]
    truncated: bool
    def __init__(self, episodes: _Optional[_Iterable[_Union[EpisodeRecap, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class DocumentIngestRequest(_message.Message):
    __slots__ = ("content", "source", "title", "format", "data")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    content: str
    source: str
    title: str
    format: str
    data: bytes
    def __init__(self, content: _Optional[str] = ..., source: _Optional[str] = ..., title: _Optional[str] = ..., format: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class DocumentIngestResponse(_message.Message):
    __slots__ = ("id", "chunks", "embedded", "duplicate")
    ID_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    id: str
    chunks: int
    embedded: bool
    duplicate: bool
    def __init__(self, id: _Optional[str] = ..., chunks: _Optional[int] = ..., embedded: _Optional[bool] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class DocumentSearchRequest(_message.Message):
    __slots__ = ("query", "top_k")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    query: str
    top_k: int
    def __init__(self, query: _Optional[str] = ..., top_k: _Optional[int] = ...) -> None: ...

class DocumentSearchResponse(_message.Message):
    __slots__ = ("documents", "mode")
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    documents: _containers.RepeatedCompositeFieldContainer[DocumentHit]
    mode: str
    def __init__(self, documents: _Optional[_Iterable[_Union[DocumentHit, _Mapping]]] = ..., mode: _Optional[str] = ...) -> None: ...

class DocumentGetRequest(_message.Message):
    __slots__ = ("document_id", "chunk_offset", "chunk_limit")
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CHUNK_LIMIT_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    chunk_offset: int
    chunk_limit: int
    def __init__(self, document_id: _Optional[str] = ..., chunk_offset: _Optional[int] = ..., chunk_limit: _Optional[int] = ...) -> None: ...

class DocumentChunk(_message.Message):
    __slots__ = ("ordinal", "start_char", "text", "embedded")
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    START_CHAR_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    EMBEDDED_FIELD_NUMBER: _ClassVar[int]
    ordinal: int
    start_char: int
    text: str
    embedded: bool
    def __init__(self, ordinal: _Optional[int] = ..., start_char: _Optional[int] = ..., text: _Optional[str] = ..., embedded: _Optional[bool] = ...) -> None: ...

class DocumentGetResponse(_message.Message):
    __slots__ = ("id", "source", "title", "format", "chars", "total_chunks", "created_by", "created_at", "chunks", "next_offset")
    ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    CHARS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CHUNKS_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    id: str
    source: str
    title: str
    format: str
    chars: int
    total_chunks: int
    created_by: str
    created_at: _timestamp_pb2.Timestamp
    chunks: _containers.RepeatedCompositeFieldContainer[DocumentChunk]
    next_offset: int
    def __init__(self, id: _Optional[str] = ..., source: _Optional[str] = ..., title: _Optional[str] = ..., format: _Optional[str] = ..., chars: _Optional[int] = ..., total_chunks: _Optional[int] = ..., created_by: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., chunks: _Optional[_Iterable[_Union[DocumentChunk, _Mapping]]] = ..., next_offset: _Optional[int] = ...) -> None: ...

class DocumentForgetRequest(_message.Message):
    __slots__ = ("document_id", "reason")
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    reason: str
    def __init__(self, document_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DocumentForgetResponse(_message.Message):
    __slots__ = ("document_id", "chunks", "tombstone_id")
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    TOMBSTONE_ID_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    chunks: int
    tombstone_id: str
    def __init__(self, document_id: _Optional[str] = ..., chunks: _Optional[int] = ..., tombstone_id: _Optional[str] = ...) -> None: ...

class ConsolidationCandidatesRequest(_message.Message):
    __slots__ = ("min_similarity", "limit")
    MIN_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    min_similarity: float
    limit: int
    def __init__(self, min_similarity: _Optional[float] = ..., limit: _Optional[int] = ...) -> None: ...

class CandidateMember(_message.Message):
    __slots__ = ("entry", "similarity")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    entry: Entry
    similarity: float
    def __init__(self, entry: _Optional[_Union[Entry, _Mapping]] = ..., similarity: _Optional[float] = ...) -> None: ...

class ConsolidationCluster(_message.Message):
    __slots__ = ("members", "min_similarity", "shared_terms", "reason")
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    MIN_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    SHARED_TERMS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[CandidateMember]
    min_similarity: float
    shared_terms: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    def __init__(self, members: _Optional[_Iterable[_Union[CandidateMember, _Mapping]]] = ..., min_similarity: _Optional[float] = ..., shared_terms: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ...) -> None: ...

class ConsolidationCandidatesResponse(_message.Message):
    __slots__ = ("clusters", "scanned", "truncated", "min_similarity")
    CLUSTERS_FIELD_NUMBER: _ClassVar[int]
    SCANNED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    MIN_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    clusters: _containers.RepeatedCompositeFieldContainer[ConsolidationCluster]
    scanned: int
    truncated: bool
    min_similarity: float
    def __init__(self, clusters: _Optional[_Iterable[_Union[ConsolidationCluster, _Mapping]]] = ..., scanned: _Optional[int] = ..., truncated: _Optional[bool] = ..., min_similarity: _Optional[float] = ...) -> None: ...

class ConsolidateRequest(_message.Message):
    __slots__ = ("entry_ids", "new_text", "reason")
    ENTRY_IDS_FIELD_NUMBER: _ClassVar[int]
    NEW_TEXT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_ids: _containers.RepeatedScalarFieldContainer[str]
    new_text: str
    reason: str
    def __init__(self, entry_ids: _Optional[_Iterable[str]] = ..., new_text: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class MemoryStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MemoryStatsResponse(_message.Message):
    __slots__ = ("entries_live", "entries_archived", "entries_superseded", "entries_unembedded", "documents", "chunks", "tombstones", "storage_bytes", "searches_24h")
    ENTRIES_LIVE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_SUPERSEDED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_UNEMBEDDED_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    TOMBSTONES_FIELD_NUMBER: _ClassVar[int]
    STORAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    SEARCHES_24H_FIELD_NUMBER: _ClassVar[int]
    entries_live: int
    entries_archived: int
    entries_superseded: int
    entries_unembedded: int
    documents: int
    chunks: int
    tombstones: int
    storage_bytes: int
    searches_24h: int
    def __init__(self, entries_live: _Optional[int] = ..., entries_archived: _Optional[int] = ..., entries_superseded: _Optional[int] = ..., entries_unembedded: _Optional[int] = ..., documents: _Optional[int] = ..., chunks: _Optional[int] = ..., tombstones: _Optional[int] = ..., storage_bytes: _Optional[int] = ..., searches_24h: _Optional[int] = ...) -> None: ...
