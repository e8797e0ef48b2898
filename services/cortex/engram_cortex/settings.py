from __future__ import annotations

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
    set_members_max: int = 200
    search_top_k_max: int = 50
    # Two values of one slot whose embeddings are at least this similar (and
    # whose numbers and negation agree) are the same value reworded.
    paraphrase_cosine: float = 0.86
    search_min_cosine: float = 0.35
    # Two lessons of one polarity at least this similar say the same thing:
    # a dream pass merges them.
    lesson_merge_cosine: float = 0.9
