"""The sentence-transformers model exported to ONNX and run by ONNX Runtime.

On a CPU a lone short text spends most of a PyTorch forward in per-operator
overhead, which ONNX Runtime's fused graph avoids; the vectors are the same
to float rounding (the export is checked against the model before use).
The graph is exported from the installed weights at start-up, through a
private temporary directory removed at once: nothing is downloaded or kept.
"""

from __future__ import annotations

import tempfile
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
    follow) as one ONNX Runtime session per intra-op thread count the lanes
    use: all of them, and one. The sessions are opened at once and the
    exported graph dropped (each copy of it is the model's size)."""

    def __init__(self, st: SentenceTransformer, default_threads: int) -> None:
        import torch

        sample = st.preprocess(_CHECK_TEXTS)
        self.inputs = [k for k, v in sample.items() if isinstance(v, torch.Tensor)]
        graph = _export(st, self.inputs, sample)
        self.default_threads = default_threads
        self._sessions = {n: _open(graph, n) for n in {default_threads, 1}}
        with torch.inference_mode():
            expected = st.forward(dict(sample))["sentence_embedding"].float().numpy()
        diff = max(float(np.abs(self.run(sample, n) - expected).max()) for n in self._sessions)
        if diff > MAX_EXPORT_DIFF:
            raise SystemExit(f"the ONNX export of the model differs from it by {diff:.2e} "
                             f"(limit {MAX_EXPORT_DIFF:.0e}): set ENGRAM_MODEL_RUNTIME=torch")

    def run(self, features: dict[str, Any], threads: int) -> np.ndarray:
        """Sentence embeddings (not normalised) for tokenized features, on
        `threads` intra-op threads (0, or a count without a session: all)."""
        feed = {k: features[k].numpy() for k in self.inputs}
        session = self._sessions.get(threads) or self._sessions[self.default_threads]
        return session.run(None, feed)[0]


def _open(graph: bytes, threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # A spinning pool thread keeps a core busy between encodes (measured:
    # 27 ms of CPU per lone encode spaced 20 ms apart, against 6 without),
    # taking it from Postgres and the other services.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


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
