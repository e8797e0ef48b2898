#!/usr/bin/env bash
# The embedder benchmark with the vLLM backend, for a machine with an NVIDIA
# GPU. Not run yet: it needs vLLM (and the model weights) installable on the
# GPU host. When it has run, commit its evals/results/embedder-*.json.
#
#   MODEL=BAAI/bge-large-en-v1.5 bash evals/gpu/run_vllm_embedder_bench.sh
#
# Budget: about 10 minutes (vLLM start ~2-4 min, benchmark ~5 min).
set -euo pipefail
cd "$(dirname "$0")/../.."
MODEL=${MODEL:-BAAI/bge-large-en-v1.5}
PORT=${VLLM_PORT:-8011}
PY=${PYTHON:-.venv/bin/python}

command -v nvidia-smi >/dev/null || { echo "no NVIDIA GPU here" >&2; exit 2; }
"$PY" -c "import vllm" 2>/dev/null || "$PY" -m pip install --quiet "vllm>=0.11"

"$PY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --task embed \
  --port "$PORT" --host 127.0.0.1 > /tmp/vllm-embed.log 2>&1 &
VLLM_PID=$!
trap 'kill $VLLM_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null || { tail -50 /tmp/vllm-embed.log; exit 1; }

"$PY" evals/bench_embedder.py --backend vllm --vllm-url "http://127.0.0.1:$PORT" \
  --model-name "$MODEL" --n 4096
