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

class FactKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FACT_KIND_UNSPECIFIED: _ClassVar[FactKind]
    FACT_KIND_DECISION: _ClassVar[FactKind]
    FACT_KIND_RULE: _ClassVar[FactKind]
    FACT_KIND_STATE: _ClassVar[FactKind]
    FACT_KIND_PREFERENCE: _ClassVar[FactKind]
    FACT_KIND_REFERENCE: _ClassVar[FactKind]
    FACT_KIND_RESIDUAL: _ClassVar[FactKind]
    FACT_KIND_EVENT: _ClassVar[FactKind]
FACT_KIND_UNSPECIFIED: FactKind
FACT_KIND_DECISION: FactKind
FACT_KIND_RULE: FactKind
FACT_KIND_STATE: FactKind
FACT_KIND_PREFERENCE: FactKind
FACT_KIND_REFERENCE: FactKind
FACT_KIND_RESIDUAL: FactKind
FACT_KIND_EVENT: FactKind

class Evidence(_message.Message):
    __slots__ = ("quote", "source_type", "source_ref", "captured_by")
    QUOTE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_BY_FIELD_NUMBER: _ClassVar[int]
    quote: str
    source_type: str
    source_ref: str
    captured_by: str
    def __init__(self, quote: _Optional[str] = ..., source_type: _Optional[str] = ..., source_ref: _Optional[str] = ..., captured_by: _Optional[str] = ...) -> None: ...

class KindDetails(_message.Message):
    __slots__ = ("scope", "trigger_predicate", "status_detail", "expected_lifetime_seconds", "earned_by", "risk_weight", "subject", "reopen_trigger")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_PREDICATE_FIELD_NUMBER: _ClassVar[int]
    STATUS_DETAIL_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_LIFETIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    EARNED_BY_FIELD_NUMBER: _ClassVar[int]
    RISK_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    REOPEN_TRIGGER_FIELD_NUMBER: _ClassVar[int]
    scope: str
    trigger_predicate: str
    status_detail: str
    expected_lifetime_seconds: int
    earned_by: str
    risk_weight: float
    subject: str
    reopen_trigger: str
    def __init__(self, scope: _Optional[str] = ..., trigger_predicate: _Optional[str] = ..., status_detail: _Optional[str] = ..., expected_lifetime_seconds: _Optional[int] = ..., earned_by: _Optional[str] = ..., risk_weight: _Optional[float] = ..., subject: _Optional[str] = ..., reopen_trigger: _Optional[str] = ...) -> None: ...

class Fact(_message.Message):
    __slots__ = ("id", "entity", "attribute", "value", "kind", "verdict", "label", "evidence", "origin", "confidence", "valid_from", "valid_to", "recorded_at", "retired_at", "details", "writer_principal", "superseded_by", "supersedes", "set_member", "conflict_id", "score", "tags", "last_verified_at", "re_verify")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    VALID_TO_FIELD_NUMBER: _ClassVar[int]
    RECORDED_AT_FIELD_NUMBER: _ClassVar[int]
    RETIRED_AT_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    WRITER_PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_BY_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_FIELD_NUMBER: _ClassVar[int]
    SET_MEMBER_FIELD_NUMBER: _ClassVar[int]
    CONFLICT_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    LAST_VERIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    RE_VERIFY_FIELD_NUMBER: _ClassVar[int]
    id: str
    entity: str
    attribute: str
    value: str
    kind: FactKind
    verdict: str
    label: str
    evidence: Evidence
    origin: str
    confidence: float
    valid_from: _timestamp_pb2.Timestamp
    valid_to: _timestamp_pb2.Timestamp
    recorded_at: _timestamp_pb2.Timestamp
    retired_at: _timestamp_pb2.Timestamp
    details: KindDetails
    writer_principal: str
    superseded_by: str
    supersedes: str
    set_member: bool
    conflict_id: str
    score: float
    tags: _containers.RepeatedScalarFieldContainer[str]
    last_verified_at: _timestamp_pb2.Timestamp
    re_verify: str
    def __init__(self, id: _Optional[str] = ..., entity: _Optional[str] = ..., attribute: _Optional[str] = ..., value: _Optional[str] = ..., kind: _Optional[_Union[FactKind, str]] = ..., verdict: _Optional[str] = ..., label: _Optional[str] = ..., evidence: _Optional[_Union[Evidence, _Mapping]] = ..., origin: _Optional[str] = ..., confidence: _Optional[float] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., valid_to: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., recorded_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., retired_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., details: _Optional[_Union[KindDetails, _Mapping]] = ..., writer_principal: _Optional[str] = ..., superseded_by: _Optional[str] = ..., supersedes: _Optional[str] = ..., set_member: _Optional[bool] = ..., conflict_id: _Optional[str] = ..., score: _Optional[float] = ..., tags: _Optional[_Iterable[str]] = ..., last_verified_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., re_verify: _Optional[str] = ...) -> None: ...

class SetFactRequest(_message.Message):
    __slots__ = ("entity", "attribute", "value", "kind", "evidence", "origin", "valid_from", "confidence", "replaces", "supersedes", "details", "tags", "batch")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    REPLACES_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    value: str
    kind: FactKind
    evidence: Evidence
    origin: str
    valid_from: _timestamp_pb2.Timestamp
    confidence: float
    replaces: bool
    supersedes: str
    details: KindDetails
    tags: _containers.RepeatedScalarFieldContainer[str]
    batch: str
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ..., value: _Optional[str] = ..., kind: _Optional[_Union[FactKind, str]] = ..., evidence: _Optional[_Union[Evidence, _Mapping]] = ..., origin: _Optional[str] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., confidence: _Optional[float] = ..., replaces: _Optional[bool] = ..., supersedes: _Optional[str] = ..., details: _Optional[_Union[KindDetails, _Mapping]] = ..., tags: _Optional[_Iterable[str]] = ..., batch: _Optional[str] = ...) -> None: ...

class SetFactResponse(_message.Message):
    __slots__ = ("action", "fact", "conflict_id", "related_id", "reasserts_retired", "lane", "note", "resolve_call", "unresolved_tags")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FACT_FIELD_NUMBER: _ClassVar[int]
    CONFLICT_ID_FIELD_NUMBER: _ClassVar[int]
    RELATED_ID_FIELD_NUMBER: _ClassVar[int]
    REASSERTS_RETIRED_FIELD_NUMBER: _ClassVar[int]
    LANE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    RESOLVE_CALL_FIELD_NUMBER: _ClassVar[int]
    UNRESOLVED_TAGS_FIELD_NUMBER: _ClassVar[int]
    action: str
    fact: Fact
    conflict_id: str
    related_id: str
    reasserts_retired: str
    lane: str
    note: str
    resolve_call: str
    unresolved_tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, action: _Optional[str] = ..., fact: _Optional[_Union[Fact, _Mapping]] = ..., conflict_id: _Optional[str] = ..., related_id: _Optional[str] = ..., reasserts_retired: _Optional[str] = ..., lane: _Optional[str] = ..., note: _Optional[str] = ..., resolve_call: _Optional[str] = ..., unresolved_tags: _Optional[_Iterable[str]] = ...) -> None: ...

class GetFactRequest(_message.Message):
    __slots__ = ("entity", "attribute", "as_of")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    as_of: _timestamp_pb2.Timestamp
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ..., as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetFactResponse(_message.Message):
    __slots__ = ("current", "contenders", "label", "set_valued")
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    CONTENDERS_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SET_VALUED_FIELD_NUMBER: _ClassVar[int]
    current: _containers.RepeatedCompositeFieldContainer[Fact]
    contenders: _containers.RepeatedCompositeFieldContainer[Fact]
    label: str
    set_valued: bool
    def __init__(self, current: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., contenders: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., label: _Optional[str] = ..., set_valued: _Optional[bool] = ...) -> None: ...

class FactHistoryRequest(_message.Message):
    __slots__ = ("entity", "attribute")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ...) -> None: ...

class FactHistoryResponse(_message.Message):
    __slots__ = ("facts",)
    FACTS_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    def __init__(self, facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ...) -> None: ...

class RetractFactRequest(_message.Message):
    __slots__ = ("entity", "attribute", "value", "reason")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    value: str
    reason: str
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ..., value: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RetractFactResponse(_message.Message):
    __slots__ = ("retracted", "ids")
    RETRACTED_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    retracted: int
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, retracted: _Optional[int] = ..., ids: _Optional[_Iterable[str]] = ...) -> None: ...

class SetMemberRequest(_message.Message):
    __slots__ = ("entity", "attribute", "member", "kind", "evidence", "origin", "reason")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    member: str
    kind: FactKind
    evidence: Evidence
    origin: str
    reason: str
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ..., member: _Optional[str] = ..., kind: _Optional[_Union[FactKind, str]] = ..., evidence: _Optional[_Union[Evidence, _Mapping]] = ..., origin: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SetMemberResponse(_message.Message):
    __slots__ = ("action", "fact", "members", "reasserts_retired")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FACT_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    REASSERTS_RETIRED_FIELD_NUMBER: _ClassVar[int]
    action: str
    fact: Fact
    members: int
    reasserts_retired: str
    def __init__(self, action: _Optional[str] = ..., fact: _Optional[_Union[Fact, _Mapping]] = ..., members: _Optional[int] = ..., reasserts_retired: _Optional[str] = ...) -> None: ...

class Conflict(_message.Message):
    __slots__ = ("id", "fact_a", "fact_b", "lane", "status", "winner_id", "reasoning", "decided_by", "opened_at", "decided_at", "resolve_call")
    ID_FIELD_NUMBER: _ClassVar[int]
    FACT_A_FIELD_NUMBER: _ClassVar[int]
    FACT_B_FIELD_NUMBER: _ClassVar[int]
    LANE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    WINNER_ID_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    DECIDED_BY_FIELD_NUMBER: _ClassVar[int]
    OPENED_AT_FIELD_NUMBER: _ClassVar[int]
    DECIDED_AT_FIELD_NUMBER: _ClassVar[int]
    RESOLVE_CALL_FIELD_NUMBER: _ClassVar[int]
    id: str
    fact_a: Fact
    fact_b: Fact
    lane: str
    status: str
    winner_id: str
    reasoning: str
    decided_by: str
    opened_at: _timestamp_pb2.Timestamp
    decided_at: _timestamp_pb2.Timestamp
    resolve_call: str
    def __init__(self, id: _Optional[str] = ..., fact_a: _Optional[_Union[Fact, _Mapping]] = ..., fact_b: _Optional[_Union[Fact, _Mapping]] = ..., lane: _Optional[str] = ..., status: _Optional[str] = ..., winner_id: _Optional[str] = ..., reasoning: _Optional[str] = ..., decided_by: _Optional[str] = ..., opened_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., decided_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., resolve_call: _Optional[str] = ...) -> None: ...

class ListConflictsRequest(_message.Message):
    __slots__ = ("status", "limit")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    status: str
    limit: int
    def __init__(self, status: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListConflictsResponse(_message.Message):
    __slots__ = ("conflicts",)
    CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    conflicts: _containers.RepeatedCompositeFieldContainer[Conflict]
    def __init__(self, conflicts: _Optional[_Iterable[_Union[Conflict, _Mapping]]] = ...) -> None: ...

class ResolveConflictRequest(_message.Message):
    __slots__ = ("conflict_id", "winner_id", "both_stand", "reasoning")
    CONFLICT_ID_FIELD_NUMBER: _ClassVar[int]
    WINNER_ID_FIELD_NUMBER: _ClassVar[int]
    BOTH_STAND_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    conflict_id: str
    winner_id: str
    both_stand: bool
    reasoning: str
    def __init__(self, conflict_id: _Optional[str] = ..., winner_id: _Optional[str] = ..., both_stand: _Optional[bool] = ..., reasoning: _Optional[str] = ...) -> None: ...

class ResolveConflictResponse(_message.Message):
    __slots__ = ("conflict",)
    CONFLICT_FIELD_NUMBER: _ClassVar[int]
    conflict: Conflict
    def __init__(self, conflict: _Optional[_Union[Conflict, _Mapping]] = ...) -> None: ...

class SearchFactsRequest(_message.Message):
    __slots__ = ("query", "top_k", "query_vector")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    QUERY_VECTOR_FIELD_NUMBER: _ClassVar[int]
    query: str
    top_k: int
    query_vector: _common_pb2.QueryVector
    def __init__(self, query: _Optional[str] = ..., top_k: _Optional[int] = ..., query_vector: _Optional[_Union[_common_pb2.QueryVector, _Mapping]] = ...) -> None: ...

class SearchFactsResponse(_message.Message):
    __slots__ = ("facts", "world")
    FACTS_FIELD_NUMBER: _ClassVar[int]
    WORLD_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    world: _containers.RepeatedCompositeFieldContainer[WorldFact]
    def __init__(self, facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., world: _Optional[_Iterable[_Union[WorldFact, _Mapping]]] = ...) -> None: ...

class AddAliasRequest(_message.Message):
    __slots__ = ("entity", "alias")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    entity: str
    alias: str
    def __init__(self, entity: _Optional[str] = ..., alias: _Optional[str] = ...) -> None: ...

class AddAliasResponse(_message.Message):
    __slots__ = ("entity", "alias")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    entity: str
    alias: str
    def __init__(self, entity: _Optional[str] = ..., alias: _Optional[str] = ...) -> None: ...

class Edge(_message.Message):
    __slots__ = ("id", "src", "relation", "dst", "provenance", "derived", "evidence_quote", "valid_from", "valid_to", "recorded_at", "retired_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    SRC_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    DERIVED_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_QUOTE_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    VALID_TO_FIELD_NUMBER: _ClassVar[int]
    RECORDED_AT_FIELD_NUMBER: _ClassVar[int]
    RETIRED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    src: str
    relation: str
    dst: str
    provenance: str
    derived: bool
    evidence_quote: str
    valid_from: _timestamp_pb2.Timestamp
    valid_to: _timestamp_pb2.Timestamp
    recorded_at: _timestamp_pb2.Timestamp
    retired_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., src: _Optional[str] = ..., relation: _Optional[str] = ..., dst: _Optional[str] = ..., provenance: _Optional[str] = ..., derived: _Optional[bool] = ..., evidence_quote: _Optional[str] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., valid_to: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., recorded_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., retired_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RelateRequest(_message.Message):
    __slots__ = ("src", "relation", "dst", "provenance", "evidence_quote", "valid_from")
    SRC_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_QUOTE_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    src: str
    relation: str
    dst: str
    provenance: str
    evidence_quote: str
    valid_from: _timestamp_pb2.Timestamp
    def __init__(self, src: _Optional[str] = ..., relation: _Optional[str] = ..., dst: _Optional[str] = ..., provenance: _Optional[str] = ..., evidence_quote: _Optional[str] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RelateResponse(_message.Message):
    __slots__ = ("action", "edge")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EDGE_FIELD_NUMBER: _ClassVar[int]
    action: str
    edge: Edge
    def __init__(self, action: _Optional[str] = ..., edge: _Optional[_Union[Edge, _Mapping]] = ...) -> None: ...

class Node(_message.Message):
    __slots__ = ("entity", "depth", "facts")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    entity: str
    depth: int
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    def __init__(self, entity: _Optional[str] = ..., depth: _Optional[int] = ..., facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ...) -> None: ...

class NeighborsRequest(_message.Message):
    __slots__ = ("entity", "depth", "to")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    entity: str
    depth: int
    to: str
    def __init__(self, entity: _Optional[str] = ..., depth: _Optional[int] = ..., to: _Optional[str] = ...) -> None: ...

class NeighborsResponse(_message.Message):
    __slots__ = ("nodes", "edges", "path", "path_edges", "truncated")
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    PATH_EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[Node]
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    path: _containers.RepeatedScalarFieldContainer[str]
    path_edges: _containers.RepeatedCompositeFieldContainer[Edge]
    truncated: bool
    def __init__(self, nodes: _Optional[_Iterable[_Union[Node, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., path: _Optional[_Iterable[str]] = ..., path_edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class RecallRequest(_message.Message):
    __slots__ = ("query", "hops", "top_k")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    query: str
    hops: int
    top_k: int
    def __init__(self, query: _Optional[str] = ..., hops: _Optional[int] = ..., top_k: _Optional[int] = ...) -> None: ...

class RecallResponse(_message.Message):
    __slots__ = ("facts", "edges", "seeds", "visited", "low_confidence", "truncated")
    FACTS_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    VISITED_FIELD_NUMBER: _ClassVar[int]
    LOW_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    seeds: _containers.RepeatedScalarFieldContainer[str]
    visited: _containers.RepeatedScalarFieldContainer[str]
    low_confidence: bool
    truncated: bool
    def __init__(self, facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., seeds: _Optional[_Iterable[str]] = ..., visited: _Optional[_Iterable[str]] = ..., low_confidence: _Optional[bool] = ..., truncated: _Optional[bool] = ...) -> None: ...

class Relation(_message.Message):
    __slots__ = ("name", "inverse", "transitive", "symmetric")
    NAME_FIELD_NUMBER: _ClassVar[int]
    INVERSE_FIELD_NUMBER: _ClassVar[int]
    TRANSITIVE_FIELD_NUMBER: _ClassVar[int]
    SYMMETRIC_FIELD_NUMBER: _ClassVar[int]
    name: str
    inverse: str
    transitive: bool
    symmetric: bool
    def __init__(self, name: _Optional[str] = ..., inverse: _Optional[str] = ..., transitive: _Optional[bool] = ..., symmetric: _Optional[bool] = ...) -> None: ...

class ListRelationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRelationsResponse(_message.Message):
    __slots__ = ("relations",)
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    relations: _containers.RepeatedCompositeFieldContainer[Relation]
    def __init__(self, relations: _Optional[_Iterable[_Union[Relation, _Mapping]]] = ...) -> None: ...

class AddRelationRequest(_message.Message):
    __slots__ = ("relation",)
    RELATION_FIELD_NUMBER: _ClassVar[int]
    relation: Relation
    def __init__(self, relation: _Optional[_Union[Relation, _Mapping]] = ...) -> None: ...

class WorldFact(_message.Message):
    __slots__ = ("id", "entity", "attribute", "value", "source_url", "source_quote", "freshness", "confidence", "effective_confidence", "stale", "checked_at", "recorded_at", "score")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_URL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_QUOTE_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    CHECKED_AT_FIELD_NUMBER: _ClassVar[int]
    RECORDED_AT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    id: str
    entity: str
    attribute: str
    value: str
    source_url: str
    source_quote: str
    freshness: str
    confidence: float
    effective_confidence: float
    stale: bool
    checked_at: _timestamp_pb2.Timestamp
    recorded_at: _timestamp_pb2.Timestamp
    score: float
    def __init__(self, id: _Optional[str] = ..., entity: _Optional[str] = ..., attribute: _Optional[str] = ..., value: _Optional[str] = ..., source_url: _Optional[str] = ..., source_quote: _Optional[str] = ..., freshness: _Optional[str] = ..., confidence: _Optional[float] = ..., effective_confidence: _Optional[float] = ..., stale: _Optional[bool] = ..., checked_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., recorded_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., score: _Optional[float] = ...) -> None: ...

class WorldSetRequest(_message.Message):
    __slots__ = ("entity", "attribute", "value", "source_url", "source_quote", "freshness", "confidence")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_URL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_QUOTE_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    value: str
    source_url: str
    source_quote: str
    freshness: str
    confidence: float
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ..., value: _Optional[str] = ..., source_url: _Optional[str] = ..., source_quote: _Optional[str] = ..., freshness: _Optional[str] = ..., confidence: _Optional[float] = ...) -> None: ...

class WorldSetResponse(_message.Message):
    __slots__ = ("action", "fact")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FACT_FIELD_NUMBER: _ClassVar[int]
    action: str
    fact: WorldFact
    def __init__(self, action: _Optional[str] = ..., fact: _Optional[_Union[WorldFact, _Mapping]] = ...) -> None: ...

class TextSearchRequest(_message.Message):
    __slots__ = ("query", "top_k")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    query: str
    top_k: int
    def __init__(self, query: _Optional[str] = ..., top_k: _Optional[int] = ...) -> None: ...

class WorldSearchResponse(_message.Message):
    __slots__ = ("facts",)
    FACTS_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[WorldFact]
    def __init__(self, facts: _Optional[_Iterable[_Union[WorldFact, _Mapping]]] = ...) -> None: ...

class OutcomeRequest(_message.Message):
    __slots__ = ("task", "outcome", "detail", "used_ids")
    TASK_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    USED_IDS_FIELD_NUMBER: _ClassVar[int]
    task: str
    outcome: str
    detail: str
    used_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, task: _Optional[str] = ..., outcome: _Optional[str] = ..., detail: _Optional[str] = ..., used_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class Lesson(_message.Message):
    __slots__ = ("id", "polarity", "text", "task", "confidence", "signals", "subject_fact_ids", "re_verify", "distilled_by", "score", "recorded_by")
    ID_FIELD_NUMBER: _ClassVar[int]
    POLARITY_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FACT_IDS_FIELD_NUMBER: _ClassVar[int]
    RE_VERIFY_FIELD_NUMBER: _ClassVar[int]
    DISTILLED_BY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RECORDED_BY_FIELD_NUMBER: _ClassVar[int]
    id: str
    polarity: str
    text: str
    task: str
    confidence: float
    signals: int
    subject_fact_ids: _containers.RepeatedScalarFieldContainer[str]
    re_verify: bool
    distilled_by: str
    score: float
    recorded_by: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., polarity: _Optional[str] = ..., text: _Optional[str] = ..., task: _Optional[str] = ..., confidence: _Optional[float] = ..., signals: _Optional[int] = ..., subject_fact_ids: _Optional[_Iterable[str]] = ..., re_verify: _Optional[bool] = ..., distilled_by: _Optional[str] = ..., score: _Optional[float] = ..., recorded_by: _Optional[_Iterable[str]] = ...) -> None: ...

class OutcomeResponse(_message.Message):
    __slots__ = ("outcome_id", "identical_signals", "lesson")
    OUTCOME_ID_FIELD_NUMBER: _ClassVar[int]
    IDENTICAL_SIGNALS_FIELD_NUMBER: _ClassVar[int]
    LESSON_FIELD_NUMBER: _ClassVar[int]
    outcome_id: str
    identical_signals: int
    lesson: Lesson
    def __init__(self, outcome_id: _Optional[str] = ..., identical_signals: _Optional[int] = ..., lesson: _Optional[_Union[Lesson, _Mapping]] = ...) -> None: ...

class LessonSearchResponse(_message.Message):
    __slots__ = ("lessons",)
    LESSONS_FIELD_NUMBER: _ClassVar[int]
    lessons: _containers.RepeatedCompositeFieldContainer[Lesson]
    def __init__(self, lessons: _Optional[_Iterable[_Union[Lesson, _Mapping]]] = ...) -> None: ...

class TagRequest(_message.Message):
    __slots__ = ("tag", "reason", "alias")
    TAG_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    tag: str
    reason: str
    alias: str
    def __init__(self, tag: _Optional[str] = ..., reason: _Optional[str] = ..., alias: _Optional[str] = ...) -> None: ...

class TagResponse(_message.Message):
    __slots__ = ("tag", "status", "note")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    tag: str
    status: str
    note: str
    def __init__(self, tag: _Optional[str] = ..., status: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...

class ReviewItem(_message.Message):
    __slots__ = ("id", "kind", "summary", "created_at", "conflict", "decide_call", "contender")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONFLICT_FIELD_NUMBER: _ClassVar[int]
    DECIDE_CALL_FIELD_NUMBER: _ClassVar[int]
    CONTENDER_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    summary: str
    created_at: _timestamp_pb2.Timestamp
    conflict: Conflict
    decide_call: str
    contender: Fact
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., summary: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., conflict: _Optional[_Union[Conflict, _Mapping]] = ..., decide_call: _Optional[str] = ..., contender: _Optional[_Union[Fact, _Mapping]] = ...) -> None: ...

class ReviewListRequest(_message.Message):
    __slots__ = ("kind", "cursor", "limit", "q")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    Q_FIELD_NUMBER: _ClassVar[int]
    kind: str
    cursor: str
    limit: int
    q: str
    def __init__(self, kind: _Optional[str] = ..., cursor: _Optional[str] = ..., limit: _Optional[int] = ..., q: _Optional[str] = ...) -> None: ...

class ReviewListResponse(_message.Message):
    __slots__ = ("items", "next_cursor", "total")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ReviewItem]
    next_cursor: str
    total: int
    def __init__(self, items: _Optional[_Iterable[_Union[ReviewItem, _Mapping]]] = ..., next_cursor: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class ReviewDecideRequest(_message.Message):
    __slots__ = ("item_id", "decision", "winner_id", "reasoning")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    WINNER_ID_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    decision: str
    winner_id: str
    reasoning: str
    def __init__(self, item_id: _Optional[str] = ..., decision: _Optional[str] = ..., winner_id: _Optional[str] = ..., reasoning: _Optional[str] = ...) -> None: ...

class ReviewDecideResponse(_message.Message):
    __slots__ = ("item_id", "kind", "status")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    kind: str
    status: str
    def __init__(self, item_id: _Optional[str] = ..., kind: _Optional[str] = ..., status: _Optional[str] = ...) -> None: ...

class RevertBatchRequest(_message.Message):
    __slots__ = ("batch",)
    BATCH_FIELD_NUMBER: _ClassVar[int]
    batch: str
    def __init__(self, batch: _Optional[str] = ...) -> None: ...

class RevertBatchResponse(_message.Message):
    __slots__ = ("batch", "rows")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    batch: str
    rows: int
    def __init__(self, batch: _Optional[str] = ..., rows: _Optional[int] = ...) -> None: ...

class ForgetBySourceRequest(_message.Message):
    __slots__ = ("source_refs", "reason")
    SOURCE_REFS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    source_refs: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    def __init__(self, source_refs: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ...) -> None: ...

class ForgetBySourceResponse(_message.Message):
    __slots__ = ("forgotten",)
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    forgotten: int
    def __init__(self, forgotten: _Optional[int] = ...) -> None: ...

class NearDuplicatesRequest(_message.Message):
    __slots__ = ("entities",)
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    entities: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, entities: _Optional[_Iterable[str]] = ...) -> None: ...

class EntityPair(_message.Message):
    __slots__ = ("keep", "merge", "similarity", "keep_facts", "merge_facts", "reason")
    KEEP_FIELD_NUMBER: _ClassVar[int]
    MERGE_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    KEEP_FACTS_FIELD_NUMBER: _ClassVar[int]
    MERGE_FACTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    keep: str
    merge: str
    similarity: float
    keep_facts: int
    merge_facts: int
    reason: str
    def __init__(self, keep: _Optional[str] = ..., merge: _Optional[str] = ..., similarity: _Optional[float] = ..., keep_facts: _Optional[int] = ..., merge_facts: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class FactPair(_message.Message):
    __slots__ = ("entity", "keep_attribute", "merge_attribute", "value", "reason")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    KEEP_ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    MERGE_ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entity: str
    keep_attribute: str
    merge_attribute: str
    value: str
    reason: str
    def __init__(self, entity: _Optional[str] = ..., keep_attribute: _Optional[str] = ..., merge_attribute: _Optional[str] = ..., value: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class NearDuplicatesResponse(_message.Message):
    __slots__ = ("entities", "facts")
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    entities: _containers.RepeatedCompositeFieldContainer[EntityPair]
    facts: _containers.RepeatedCompositeFieldContainer[FactPair]
    def __init__(self, entities: _Optional[_Iterable[_Union[EntityPair, _Mapping]]] = ..., facts: _Optional[_Iterable[_Union[FactPair, _Mapping]]] = ...) -> None: ...

class MergeEntitiesRequest(_message.Message):
    __slots__ = ("merge", "into", "reasoning")
    MERGE_FIELD_NUMBER: _ClassVar[int]
    INTO_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    merge: str
    into: str
    reasoning: str
    def __init__(self, merge: _Optional[str] = ..., into: _Optional[str] = ..., reasoning: _Optional[str] = ...) -> None: ...

class MergeEntitiesResponse(_message.Message):
    __slots__ = ("into", "facts_moved", "facts_retired", "edges_moved")
    INTO_FIELD_NUMBER: _ClassVar[int]
    FACTS_MOVED_FIELD_NUMBER: _ClassVar[int]
    FACTS_RETIRED_FIELD_NUMBER: _ClassVar[int]
    EDGES_MOVED_FIELD_NUMBER: _ClassVar[int]
    into: str
    facts_moved: int
    facts_retired: int
    edges_moved: int
    def __init__(self, into: _Optional[str] = ..., facts_moved: _Optional[int] = ..., facts_retired: _Optional[int] = ..., edges_moved: _Optional[int] = ...) -> None: ...

class MergeLessonsRequest(_message.Message):
    __slots__ = ("batch",)
    BATCH_FIELD_NUMBER: _ClassVar[int]
    batch: str
    def __init__(self, batch: _Optional[str] = ...) -> None: ...

class LessonMerge(_message.Message):
    __slots__ = ("kept", "dropped", "similarity")
    KEPT_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    kept: str
    dropped: str
    similarity: float
    def __init__(self, kept: _Optional[str] = ..., dropped: _Optional[str] = ..., similarity: _Optional[float] = ...) -> None: ...

class MergeLessonsResponse(_message.Message):
    __slots__ = ("merged",)
    MERGED_FIELD_NUMBER: _ClassVar[int]
    merged: _containers.RepeatedCompositeFieldContainer[LessonMerge]
    def __init__(self, merged: _Optional[_Iterable[_Union[LessonMerge, _Mapping]]] = ...) -> None: ...

class KnowledgeBriefingRequest(_message.Message):
    __slots__ = ("rules", "lessons", "state")
    RULES_FIELD_NUMBER: _ClassVar[int]
    LESSONS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    rules: int
    lessons: int
    state: int
    def __init__(self, rules: _Optional[int] = ..., lessons: _Optional[int] = ..., state: _Optional[int] = ...) -> None: ...

class KnowledgeBriefingResponse(_message.Message):
    __slots__ = ("rules", "rules_total", "lessons", "lessons_total", "state", "state_total")
    RULES_FIELD_NUMBER: _ClassVar[int]
    RULES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    LESSONS_FIELD_NUMBER: _ClassVar[int]
    LESSONS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_TOTAL_FIELD_NUMBER: _ClassVar[int]
    rules: _containers.RepeatedCompositeFieldContainer[Fact]
    rules_total: int
    lessons: _containers.RepeatedCompositeFieldContainer[Lesson]
    lessons_total: int
    state: _containers.RepeatedCompositeFieldContainer[Fact]
    state_total: int
    def __init__(self, rules: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., rules_total: _Optional[int] = ..., lessons: _Optional[_Iterable[_Union[Lesson, _Mapping]]] = ..., lessons_total: _Optional[int] = ..., state: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., state_total: _Optional[int] = ...) -> None: ...

class SessionChangesRequest(_message.Message):
    __slots__ = ("since",)
    SINCE_FIELD_NUMBER: _ClassVar[int]
    since: str
    def __init__(self, since: _Optional[str] = ...) -> None: ...

class FactChange(_message.Message):
    __slots__ = ("fact_id", "entity", "attribute", "value", "change", "new_value", "by", "conflict_id")
    FACT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    NEW_VALUE_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    CONFLICT_ID_FIELD_NUMBER: _ClassVar[int]
    fact_id: str
    entity: str
    attribute: str
    value: str
    change: str
    new_value: str
    by: str
    conflict_id: str
    def __init__(self, fact_id: _Optional[str] = ..., entity: _Optional[str] = ..., attribute: _Optional[str] = ..., value: _Optional[str] = ..., change: _Optional[str] = ..., new_value: _Optional[str] = ..., by: _Optional[str] = ..., conflict_id: _Optional[str] = ...) -> None: ...

class SessionChangesResponse(_message.Message):
    __slots__ = ("changes", "conflicts_opened", "cursor")
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    CONFLICTS_OPENED_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[FactChange]
    conflicts_opened: int
    cursor: str
    def __init__(self, changes: _Optional[_Iterable[_Union[FactChange, _Mapping]]] = ..., conflicts_opened: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class CortexStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class FactCount(_message.Message):
    __slots__ = ("kind", "verdict", "count")
    KIND_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    kind: str
    verdict: str
    count: int
    def __init__(self, kind: _Optional[str] = ..., verdict: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class CortexStatsResponse(_message.Message):
    __slots__ = ("facts", "open_conflicts", "proposed_tags", "lessons", "recalls_24h")
    FACTS_FIELD_NUMBER: _ClassVar[int]
    OPEN_CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    PROPOSED_TAGS_FIELD_NUMBER: _ClassVar[int]
    LESSONS_FIELD_NUMBER: _ClassVar[int]
    RECALLS_24H_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[FactCount]
    open_conflicts: int
    proposed_tags: int
    lessons: int
    recalls_24h: int
    def __init__(self, facts: _Optional[_Iterable[_Union[FactCount, _Mapping]]] = ..., open_conflicts: _Optional[int] = ..., proposed_tags: _Optional[int] = ..., lessons: _Optional[int] = ..., recalls_24h: _Optional[int] = ...) -> None: ...

class VerifyFactRequest(_message.Message):
    __slots__ = ("entity", "attribute")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ...) -> None: ...

class VerifyFactResponse(_message.Message):
    __slots__ = ("facts",)
    FACTS_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    def __init__(self, facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ...) -> None: ...

class FlagEvidenceRequest(_message.Message):
    __slots__ = ("source_refs", "change", "by_ref")
    SOURCE_REFS_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    BY_REF_FIELD_NUMBER: _ClassVar[int]
    source_refs: _containers.RepeatedScalarFieldContainer[str]
    change: str
    by_ref: str
    def __init__(self, source_refs: _Optional[_Iterable[str]] = ..., change: _Optional[str] = ..., by_ref: _Optional[str] = ...) -> None: ...

class FlagEvidenceResponse(_message.Message):
    __slots__ = ("flagged",)
    FLAGGED_FIELD_NUMBER: _ClassVar[int]
    flagged: int
    def __init__(self, flagged: _Optional[int] = ...) -> None: ...

class WorldRetractRequest(_message.Message):
    __slots__ = ("entity", "attribute", "reason", "erase")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ERASE_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    reason: str
    erase: bool
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ..., reason: _Optional[str] = ..., erase: _Optional[bool] = ...) -> None: ...

class WorldRetractResponse(_message.Message):
    __slots__ = ("facts", "erased")
    FACTS_FIELD_NUMBER: _ClassVar[int]
    ERASED_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[WorldFact]
    erased: int
    def __init__(self, facts: _Optional[_Iterable[_Union[WorldFact, _Mapping]]] = ..., erased: _Optional[int] = ...) -> None: ...

class LessonRetireRequest(_message.Message):
    __slots__ = ("lesson_id", "reason", "erase")
    LESSON_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ERASE_FIELD_NUMBER: _ClassVar[int]
    lesson_id: str
    reason: str
    erase: bool
    def __init__(self, lesson_id: _Optional[str] = ..., reason: _Optional[str] = ..., erase: _Optional[bool] = ...) -> None: ...

class LessonRetireResponse(_message.Message):
    __slots__ = ("lesson", "erased")
    LESSON_FIELD_NUMBER: _ClassVar[int]
    ERASED_FIELD_NUMBER: _ClassVar[int]
    lesson: Lesson
    erased: bool
    def __init__(self, lesson: _Optional[_Union[Lesson, _Mapping]] = ..., erased: _Optional[bool] = ...) -> None: ...

class FactForgetRequest(_message.Message):
    __slots__ = ("entity", "attribute", "value", "reason")
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entity: str
    attribute: str
    value: str
    reason: str
    def __init__(self, entity: _Optional[str] = ..., attribute: _Optional[str] = ..., value: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class FactForgetResponse(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ContenderDecideRequest(_message.Message):
    __slots__ = ("fact_id", "decision", "reasoning")
    FACT_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    fact_id: str
    decision: str
    reasoning: str
    def __init__(self, fact_id: _Optional[str] = ..., decision: _Optional[str] = ..., reasoning: _Optional[str] = ...) -> None: ...

class ContenderDecideResponse(_message.Message):
    __slots__ = ("fact", "superseded")
    FACT_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_FIELD_NUMBER: _ClassVar[int]
    fact: Fact
    superseded: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, fact: _Optional[_Union[Fact, _Mapping]] = ..., superseded: _Optional[_Iterable[str]] = ...) -> None: ...
