"""The sentence-transformers model exported to ONNX and run by ONNX Runtime.

On a CPU a lone short text spends most of a PyTorch forward in per-operator
overhead, which ONNX Runtime's fused graph avoids; the vectors are the same
to float rounding (the export is checked against the model before use).
The graph is exported from the installed weights at start-up, through a
private temporary directory removed at once: nothing is downloaded or kept.
"""

from __future__ import annotations

import tempfile
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

# The export must reproduce the model: a larger difference on the check
# batch means the exporter mistranslated an operator.
MAX_EXPORT_DIFF = 1e-4
_CHECK_TEXTS = ["a short text", "a somewhat longer text about the model's export to ONNX",
                "api-v2.internal:8443"]


class OnnxModel:
    """The model's forward pass (transformer, pooling and whatever modules
    follow) as one ONNX Runtime session per intra-op thread count."""

    def __init__(self, st: SentenceTransformer) -> None:
        import torch

        sample = st.preprocess(_CHECK_TEXTS)
        self.inputs = [k for k, v in sample.items() if isinstance(v, torch.Tensor)]
        self._graph = _export(st, self.inputs, sample)
        self._sessions: dict[int, Any] = {}
        self._lock = threading.Lock()
        with torch.inference_mode():
            expected = st.forward(dict(sample))["sentence_embedding"].float().numpy()
        diff = float(np.abs(self.run(sample, 1) - expected).max())
        if diff > MAX_EXPORT_DIFF:
            raise SystemExit(f"the ONNX export of the model differs from it by {diff:.2e} "
                             f"(limit {MAX_EXPORT_DIFF:.0e}): set ENGRAM_MODEL_RUNTIME=torch")

    def run(self, features: dict[str, Any], threads: int) -> np.ndarray:
        """Sentence embeddings (not normalised) for tokenized features."""
        feed = {k: features[k].numpy() for k in self.inputs}
        return self._session(threads).run(None, feed)[0]

    def _session(self, threads: int) -> Any:
        session = self._sessions.get(threads)
        if session is None:
            with self._lock:
                session = self._sessions.get(threads) or self._open(threads)
                self._sessions[threads] = session
        return session

    def _open(self, threads: int) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Spinning pool threads would take the CPU from Postgres and the
        # other services on a small machine; measured: no throughput lost.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(self._graph, options, providers=["CPUExecutionProvider"])


def _export(st: SentenceTransformer, inputs: list[str], sample: dict[str, Any]) -> bytes:
    import torch

    class Forward(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.st = st

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.st.forward(dict(zip(inputs, tensors, strict=True)))["sentence_embedding"]

    axes = {name: {0: "batch", 1: "tokens"} for name in inputs}
    with tempfile.TemporaryDirectory(prefix="engram-onnx-") as tmp, \
            warnings.catch_warnings(), torch.no_grad():
        # The TorchScript exporter needs no extra packages beside onnx and
        # handles this model; its deprecation notice is not actionable here.
        warnings.simplefilter("ignore")
        graph = Path(tmp) / "model.onnx"
        torch.onnx.export(Forward().eval(), tuple(sample[k] for k in inputs), graph,
                          input_names=inputs, output_names=["sentence_embedding"],
                          dynamic_axes={**axes, "sentence_embedding": {0: "batch"}},
                          opset_version=17, dynamo=False)
        return graph.read_bytes()
