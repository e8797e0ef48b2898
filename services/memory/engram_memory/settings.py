from __future__ import annotations

from pydantic import Field

from engram_kit.settings import (
    AuditSettings,
    DatabaseSettings,
    NatsSettings,
    ServiceSettings,
)


class MemorySettings(ServiceSettings, DatabaseSettings, NatsSettings, AuditSettings):
    service_name: str = "memory"
    grpc_port: int = 8751
    http_port: int = 8761
    embedder_addr: str = "127.0.0.1:8753"
    embed_timeout_s: float = 2.0
    # The embedding space this store's vectors live in (checked against the
    # embedder's Info; the dimension is also the vector column's).
    embedding_model: str = "sentence-transformers/all-MiniLM-L6-v2"
    embedding_dimension: int = 384
    reembed_interval_s: float = 2.0
    # Limits (documented in docs/limits.md; errors name them).
    max_text_chars: int = 16_000
    max_tags: int = 20
    max_tag_chars: int = 64
    max_source_chars: int = 200
    max_query_chars: int = 2_000
    max_top_k: int = 50
    default_top_k: int = 5
    # Cosine distances for typing a write: a neighbour within subject_distance
    # is about the same subject; within paraphrase_distance it says the same.
    subject_distance: float = 0.35
    paraphrase_distance: float = 0.08
    max_forget_batch: int = 500
    # Entries one forget_by_writer call forgets at most (it reports when more
    # remain): one call is one transaction, so it stays short.
    forget_writer_max_rows: int = Field(default=500, gt=0)
    max_document_chars: int = 2_000_000
    max_pdf_bytes: int = 16_000_000
    max_pdf_pages: int = 1_000
    # PDF text extraction runs in worker processes (pdf_worker.py): at most
    # this many at once, each under a wall-clock limit (the caller's gRPC
    # deadline when nearer; the gateway's is 10 s), a CPU-time and an
    # address-space limit.
    pdf_workers: int = Field(2, ge=1, le=16)
    # Of those, at most this many for one principal, and a freed worker goes
    # to the principal whose turn it is (fair_slots.py): one principal's
    # burst never holds every worker.
    pdf_workers_per_principal: int = Field(1, ge=1, le=16)
    pdf_extract_timeout_s: float = Field(8.0, gt=0)
    pdf_extract_cpu_s: int = Field(20, ge=1)
    pdf_extract_memory_mb: int = Field(1024, ge=256)
    # Ranking (engram_kit.ranking; chosen by evals/ablate/locomo.py on LoCoMo
    # conversations 1-5, judged on 6-10 (evals/harness/locomo_split.py), measured by
    # evals/bench/locomo.py). Terms in more than lexical_max_df of a
    # namespace's rows (entries; chunks for document search) are too common
    # to use (see migrations 0007 and 0013).
    rrf_k: int = 5
    lexical_weight: float = 1.5
    context_weight: float = 0.3
    episode_weight: float = 0.3
    # Query terms too common for the lexical channel still lift the
    # candidates that hold them, by this share of their score (engram_kit.ranking).
    common_term_weight: float = Field(0.5, ge=0)
    # A candidate holding the query's identifiers whole (hosts, paths,
    # versions, symbols, ids) gains this share of its score per fraction
    # held (engram_kit.ranking; evals/bench/identifiers.py).
    identifier_weight: float = Field(1.0, ge=0)
    # A question about time ("when", "how long", "what year") lifts each
    # candidate whose text names a time (yesterday, last week, May, 2022) by
    # this share of its score; 0: off (engram_kit.ranking, timewords.py; chosen on
    # LoCoMo 1-5, judged on 6-10 by evals/ablate/locomo_graph.py).
    time_weight: float = Field(0.5, ge=0)
    search_depth: int = 100
    # Each entry written after others in its episode also gets a vector of
    # the two lines before it and itself, and the dense channel ranks a row
    # by (1 - w) x its own distance + w x its context vector's
    # (context_vectors.py, migration 0020): a reply is found by a question
    # about the lines it answers. The context vector is encoded after the
    # write is acknowledged (migration 0021, the re-embed sweep's context
    # queue); a search costs a second index scan. 0: off (neither written
    # nor read).
    context_vector_weight: float = Field(0.5, ge=0, le=1)
    # A search whose served entries are all further than this cosine from
    # the query says low_confidence (memory_recall's seeds use the same 0.5).
    search_confident_cosine: float = Field(0.5, ge=0, le=1)
    lexical_max_df: float = 0.1
    # Rarest first, query terms are used while their summed df stays within
    # this many rows (migration 0011): it bounds a lexical search's work at
    # scale (docs/decisions/0002-lexical-postings-under-rls.md).
    lexical_match_budget: int = Field(20_000, ge=100)
    # BM25 for entries (tf is 1: memories are short). b is the length norm's
    # weight, off by default (docs/decisions/0001-bm25-without-length-norm.md);
    # with b=0, k1 has no effect. Document chunks use the textbook 1.2 / 0.75.
    lexical_k1: float = Field(1.2, gt=0)
    lexical_b: float = Field(0.0, ge=0, le=1)
    # Sessions close: a session's episode with no write for session_idle_s
    # closes (extractive title and summary from its entries; none: removed),
    # checked every session_sweep_s; a write within session_reopen_s of the
    # close reopens it instead of starting a new one.
    session_idle_s: float = Field(1800.0, gt=0)
    session_reopen_s: float = Field(86_400.0, ge=0)
    session_sweep_s: float = Field(60.0, gt=0)
    # Consolidation (memory_consolidation_candidates / memory_consolidate):
    # a candidate scan compares at most consolidation_max_scan of the newest
    # live entries pairwise (in memory: n^2 similarities) and returns at most
    # consolidation_max_clusters clusters; one consolidation replaces at most
    # consolidate_max_entries entries in one transaction.
    consolidation_min_similarity: float = Field(default=0.85, ge=0.5, le=1.0)
    consolidation_max_scan: int = Field(default=500, ge=2, le=5_000)
    consolidation_max_clusters: int = Field(default=20, ge=1, le=200)
    consolidate_max_entries: int = Field(default=20, ge=2, le=200)
