from __future__ import annotations

from pydantic import Field

from engram_kit.settings import (
    AuditSettings,
    DatabaseSettings,
    NatsSettings,
    ServiceSettings,
)


class CortexSettings(ServiceSettings, DatabaseSettings, NatsSettings, AuditSettings):
    """Cortex limits and thresholds; every limit is named in its error."""

    service_name: str = "cortex"
    grpc_port: int = 8752
    http_port: int = 8762
    embedder_addr: str = "127.0.0.1:8753"
    embedding_model: str = "sentence-transformers/all-MiniLM-L6-v2"
    embedding_dimension: int = 384
    embed_timeout_s: float = 5.0
    value_max_chars: int = 2000
    quote_max_chars: int = 4000
    source_ref_max_chars: int = 500
    reason_max_chars: int = 500
    # Facts one forget_by_writer call retracts at most (it reports when more
    # remain): one call is one transaction, so it stays short.
    forget_writer_max_rows: int = Field(default=500, gt=0)
    set_members_max: int = 200
    search_top_k_max: int = 50
    # Two values of one slot whose embeddings are at least this similar (and
    # whose numbers and negation agree) are the same value reworded.
    paraphrase_cosine: float = 0.86
    # Facts, world facts and lessons search fuses a dense channel (neighbours
    # at least search_min_cosine close) and a full-text channel by weighted
    # reciprocal rank fusion (engram_kit.ranking; memory's entries use the
    # same maths with their own k and weights).
    search_min_cosine: float = 0.35
    search_rrf_k: int = Field(60, ge=1)
    search_lexical_weight: float = Field(1.0, ge=0)
    # Two lessons of one polarity at least this similar say the same thing:
    # a dream pass merges them.
    lesson_merge_cosine: float = 0.9
    # One graph walk (graph_neighbors, memory_recall) reads at most fan_out
    # edges per entity and stops at any of these caps, or at the timeout (the
    # caller's deadline when nearer), reporting truncated=true.
    graph_fan_out: int = Field(50, ge=1)
    graph_max_nodes: int = Field(200, ge=1)
    graph_max_edges: int = Field(500, ge=1)
    graph_max_derived: int = Field(500, ge=0)
    graph_walk_timeout_s: float = Field(3.0, gt=0)
    # memory_recall walks from at most this many seed entities.
    recall_max_seeds: int = Field(20, ge=1)
    # The facts a session was served, kept so a later turn can be told when
    # one was superseded or contested: the newest this many per session, for
    # at most this long (the prompt hook looks back one turn).
    session_reads_max: int = Field(200, ge=1, le=10_000)
    session_reads_keep_s: float = Field(7 * 86400.0, gt=0)
