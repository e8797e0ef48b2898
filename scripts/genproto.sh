#!/usr/bin/env bash
# Regenerates the committed Python contracts from proto/. CI runs this and
# fails when the result differs from what is committed (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
out=contracts
rm -rf "$out/engram"
mkdir -p "$out"
"$PY" -m grpc_tools.protoc -I proto \
  --python_out="$out" --pyi_out="$out" --grpc_python_out="$out" \
  proto/engram/v1/*.proto
touch "$out/engram/__init__.py" "$out/engram/v1/__init__.py"
