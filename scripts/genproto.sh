#!/usr/bin/env bash
# Regenerates the committed Python contracts from proto/. CI runs this and
# fails when the result differs from what is committed (see .ci/run).
# mypy-protobuf's plugin (a dev dependency, run from the venv) writes typed
# stubs of the grpc.aio service stubs (*_pb2_grpc.pyi), so pyright checks
# each RPC's name and request type and knows its reply type.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
# The plugin is installed beside the interpreter that runs protoc.
plugin="$(dirname "$(command -v "$PY")")/protoc-gen-mypy_grpc"
test -x "$plugin" || { echo "$plugin missing: make setup installs mypy-protobuf" >&2; exit 1; }
out=contracts
rm -rf "$out/engram"
mkdir -p "$out"
"$PY" -m grpc_tools.protoc -I proto \
  --python_out="$out" --pyi_out="$out" --grpc_python_out="$out" \
  --plugin=protoc-gen-mypy_grpc="$plugin" --mypy_grpc_out=quiet,only_async:"$out" \
  proto/engram/v1/*.proto
touch "$out/engram/__init__.py" "$out/engram/v1/__init__.py"
