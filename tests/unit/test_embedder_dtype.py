"""The embedder's model precision (ENGRAM_DTYPE): half precision is refused
where it would only slow the model down, and a lower precision still gives
float32 vectors that point where float32's do."""

from __future__ import annotations

import numpy as np
import pytest

from engram_embedder.backend import ModelDtype, SentenceTransformerBackend

TEXTS = ["the deploy runs on Fridays", "api-v2.internal:8443 serves the search API"]


def test_float16_on_a_cpu_is_refused_with_what_to_set() -> None:
    with pytest.raises(SystemExit, match="ENGRAM_DTYPE=float16 needs ENGRAM_DEVICE=cuda"):
        SentenceTransformerBackend("", "cpu", dtype=ModelDtype.FLOAT16)


def test_bfloat16_vectors_are_float32_and_close_to_full_precision() -> None:
    full = SentenceTransformerBackend("", "cpu").encode(TEXTS).vectors
    half = SentenceTransformerBackend("", "cpu", dtype=ModelDtype.BFLOAT16).encode(TEXTS).vectors
    assert half.dtype == np.float32 and half.shape == full.shape
    cosines = (full * half).sum(axis=1)  # both normalised
    assert cosines.min() > 0.98, cosines
    assert not np.allclose(full, half), "the model did not run in bfloat16"
