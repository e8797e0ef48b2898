#!/usr/bin/env bash
# The embedder's sentence-transformers backend on CUDA: MiniLM in float16,
# served at concurrency 1, 32 and 256, against the raw model in the same
# run (evals/bench/embedder.py; the headline is served/raw at c=32).
#
#   bash evals/gpu/run_st_cuda_embedder_bench.sh     # N=512 requests a load point
#
# Sized for a 10-minute budget: a lone encode on the GPU takes ~8 ms, so the
# concurrency-1 points cost N x 8 ms x 3 repetitions x 3 services; N=256 ran
# in 190 s all told on one H200, N=4096 did not finish in 530 s.
#
# Needs python3 with CUDA torch and sentence-transformers. On a host with no
# package index, first make the offline bundle here with
# evals/gpu/prepare_offline_bundle.sh and bring .gpu/ along: its wheels go
# to a private target dir and its float16 weights are unpacked to /tmp.
# The artefact goes to $ENGRAM_BENCH_RESULTS_DIR (default evals/results/).
# Exit codes: 2 no CUDA device.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
command -v nvidia-smi >/dev/null || { echo "no NVIDIA GPU here" >&2; exit 2; }
"$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' ||
  { echo "$PY's torch sees no CUDA device" >&2; exit 2; }

if [ -d .gpu/wheels ]; then
  "$PY" -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/engram-gpu-site .gpu/wheels/*.whl
  export PYTHONPATH=/tmp/engram-gpu-site
fi
MODEL_PATH=${MODEL_PATH:-}
if [ -z "$MODEL_PATH" ] && [ -f .gpu/minilm-fp16/model.safetensors.xz ]; then
  MODEL_PATH=/tmp/engram-minilm-fp16
  rm -rf "$MODEL_PATH" && cp -r .gpu/minilm-fp16 "$MODEL_PATH"
  xz -d "$MODEL_PATH/model.safetensors.xz"
fi
export PYTHONPATH="$PWD/contracts:$PWD/kit:$PWD/services/embedder:$PWD/evals${PYTHONPATH:+:$PYTHONPATH}"
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export ENGRAM_BENCH_WRAPPER="N=${N:-512} bash evals/gpu/run_st_cuda_embedder_bench.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

# The batched service gets batch sizes for a GPU: one model call takes up to
# 512 texts (the CPU defaults cut calls at 64 texts / 1024 padded tokens).
"$PY" -m evals.bench.embedder --device cuda --dtype float16 --concurrency 1 32 256 \
  ${MODEL_PATH:+--model-path "$MODEL_PATH"} --n "${N:-512}" \
  --service-env max_batch_size=512 sub_batch=512 tokens_per_call=32768 max_queue_texts=16384 "$@"
