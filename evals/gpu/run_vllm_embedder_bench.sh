#!/usr/bin/env bash
# The embedder benchmark with the vLLM backend, for a machine with an NVIDIA
# GPU, vLLM (or a package index to install it from) and the model's weights
# (or the Hugging Face hub to fetch them from). Not run yet. When it has run,
# commit its evals/results/embedder-*.json.
#
#   MODEL=BAAI/bge-large-en-v1.5 bash evals/gpu/run_vllm_embedder_bench.sh
#   MODEL=/models/bge-large-en-v1.5 bash ...   # weights already on the host
#
# Budget: about 10 minutes (vLLM start ~2-4 min, benchmark ~5 min).
# Exit codes: 2 no GPU, 3 vLLM missing and not installable, 1 vLLM did not start.
set -euo pipefail
cd "$(dirname "$0")/../.."
MODEL=${MODEL:-BAAI/bge-large-en-v1.5}
PORT=${VLLM_PORT:-8011}
PY=${PYTHON:-.venv/bin/python}
LOG=${VLLM_LOG:-/tmp/vllm-embed.log}

command -v nvidia-smi >/dev/null || { echo "no NVIDIA GPU here" >&2; exit 2; }
if ! "$PY" -c "import vllm" 2>/dev/null; then
  "$PY" -m pip install --quiet "vllm>=0.11" || {
    echo "vLLM is not installed and could not be installed (pip failed: is a package" \
         "index reachable?). Its wheel is ~320 MiB; install it on the GPU host first." >&2
    exit 3
  }
fi

# vLLM >= 0.10 selects the pooling runner with --runner (--task was removed).
"$PY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --runner pooling \
  --port "$PORT" --host 127.0.0.1 > "$LOG" 2>&1 &
VLLM_PID=$!
trap 'kill $VLLM_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
  kill -0 "$VLLM_PID" 2>/dev/null || break  # it exited: no point waiting
  sleep 1
done
curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null || {
  echo "vLLM did not start (weights for $MODEL missing and the hub unreachable?):" >&2
  tail -50 "$LOG" >&2
  exit 1
}

"$PY" -m evals.bench.embedder --backend vllm --vllm-url "http://127.0.0.1:$PORT" \
  --model-name "$MODEL" --n 4096
