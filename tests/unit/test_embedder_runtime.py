"""What runs the embedder's model (ENGRAM_MODEL_RUNTIME): ONNX Runtime on a
CPU in float32 gives the vectors PyTorch gives, from any lane and thread
count at once; it is refused where it cannot run, with what to set."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from engram_embedder.backend import ModelDtype, ModelRuntime, SentenceTransformerBackend
from engram_embedder.settings import EmbedderSettings

TEXTS = ["the deploy runs on Fridays", "api-v2.internal:8443 serves the search API",
         "", "ünïcödé — 東京 🚀", "a long turn that goes on " * 120,  # past the 256-token cap
         "When did Caroline go to the LGBTQ support group?"]


@pytest.fixture(scope="module")
def torch_backend() -> SentenceTransformerBackend:
    return SentenceTransformerBackend("", "cpu", runtime=ModelRuntime.TORCH)


@pytest.fixture(scope="module")
def onnx_backend() -> SentenceTransformerBackend:
    return SentenceTransformerBackend("", "cpu", runtime=ModelRuntime.ONNX)


@pytest.mark.parametrize(("device", "dtype", "runtime"), [
    ("cpu", ModelDtype.FLOAT32, ModelRuntime.ONNX),
    ("cpu", ModelDtype.BFLOAT16, ModelRuntime.TORCH),
    ("cuda", ModelDtype.FLOAT32, ModelRuntime.TORCH),
    ("cuda:1", ModelDtype.FLOAT16, ModelRuntime.TORCH),
])
def test_auto_picks_onnx_only_for_float32_on_the_cpu(device: str, dtype: ModelDtype,
                                                      runtime: ModelRuntime) -> None:
    assert ModelRuntime.AUTO.resolve(device, dtype) is runtime
    assert EmbedderSettings.model_fields["model_runtime"].default is ModelRuntime.AUTO


@pytest.mark.parametrize(("device", "dtype"), [("cuda", ModelDtype.FLOAT32),
                                               ("cpu", ModelDtype.BFLOAT16)])
def test_onnx_where_it_cannot_run_is_refused_with_what_to_set(device: str,
                                                               dtype: ModelDtype) -> None:
    with pytest.raises(SystemExit, match="use ENGRAM_MODEL_RUNTIME=torch"):
        ModelRuntime.ONNX.resolve(device, dtype)


def test_onnx_vectors_are_the_models_vectors(torch_backend: SentenceTransformerBackend,
                                             onnx_backend: SentenceTransformerBackend) -> None:
    assert onnx_backend.runtime is ModelRuntime.ONNX
    expected = torch_backend.encode(TEXTS)
    got = onnx_backend.encode(TEXTS)
    assert got.vectors.dtype == np.float32 and got.vectors.shape == expected.vectors.shape
    assert got.tokens == expected.tokens
    assert np.abs(got.vectors - expected.vectors).max() < 1e-5
    assert np.allclose(np.linalg.norm(got.vectors, axis=1), 1.0, atol=1e-5)


def test_lanes_encode_at_once_on_their_own_thread_counts(
        torch_backend: SentenceTransformerBackend,
        onnx_backend: SentenceTransformerBackend) -> None:
    """Each lane asks for its own intra-op threads; sessions are shared
    per count and the results do not depend on which lane ran them."""
    expected = torch_backend.encode(TEXTS).vectors

    def lane(threads: int) -> np.ndarray:
        onnx_backend.intra_op_threads(threads)
        return np.stack([onnx_backend.encode(TEXTS).vectors for _ in range(5)])

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lane, [0, 1, 0, 1]))
    for result in results:
        assert np.abs(result - expected).max() < 1e-5
