#!/usr/bin/env bash
# The extraction eval with the dreamer's `openai` backend against vLLM
# serving a small instruct model, for a machine with an NVIDIA GPU and
# internet (vLLM and the weights must be installable there). Not run yet:
# when it has, commit its evals/results/extraction-openai-*.json.
#
#   MODEL=Qwen/Qwen2.5-1.5B-Instruct bash evals/gpu/run_llm_extraction_eval.sh
#
# Budget: about 10 minutes (vLLM start ~2-4 min, 230 entries in batches of 8).
set -euo pipefail
cd "$(dirname "$0")/../.."
MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
PORT=${VLLM_PORT:-8012}
PY=${PYTHON:-.venv/bin/python}

command -v nvidia-smi >/dev/null || { echo "no NVIDIA GPU here" >&2; exit 2; }
"$PY" -c "import vllm" 2>/dev/null || "$PY" -m pip install --quiet "vllm>=0.11"

"$PY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --port "$PORT" \
  --host 127.0.0.1 --max-model-len 8192 > /tmp/vllm-llm.log 2>&1 &
VLLM_PID=$!
trap 'kill $VLLM_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null || { tail -50 /tmp/vllm-llm.log; exit 1; }

"$PY" -m evals.bench.extraction --openai-url "http://127.0.0.1:$PORT" --model "$MODEL" --batch 8
