#!/usr/bin/env bash
# engram installed as a user installs it, without the checkout (CI's "dist"
# stage; runnable by hand after `make setup`):
#   1. build the wheel from this tree;
#   2. install it into a fresh venv, every dependency from
#      deploy/requirements-embedder.lock with its hash checked (torch as its
#      CPU build) and the wheel itself by hash: a dependency the wheel names
#      that the lock does not pin fails the install;
#   3. from a directory outside the checkout, with nothing of it on the path:
#      `engram up` on a temporary data dir (ports moved by
#      ENGRAM_DIST_PORT_OFFSET + ENGRAM_TEST_PORT_SHIFT), `engram connect
#      claude-desktop` into a scratch home, then store and search through the
#      `engram mcp-stdio` bridge that config names (the official MCP SDK's
#      stdio client), and `engram down`.
# Each step's seconds are printed; everything goes with the temporary dir.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${PYTHON:-python3}
offset=$(( ${ENGRAM_DIST_PORT_OFFSET:-480} + ${ENGRAM_TEST_PORT_SHIFT:-0} ))
work=$(mktemp -d -t engram-dist-XXXXXX)
# Run as root, Postgres runs as its own user and must reach its binaries in
# the venv; the data dir below is made 0700 by engram itself.
chmod 0755 "$work"
up_pid=""
step_start=$SECONDS
step() { echo "== dist: $1 ($((SECONDS - step_start)) s so far)"; }

cleanup() {
  if [[ -n $up_pid ]] && kill -0 "$up_pid" 2>/dev/null; then
    "$work/venv/bin/engram" down --data-dir "$work/data" >/dev/null 2>&1 || kill "$up_pid" || true
    wait "$up_pid" 2>/dev/null || true
  fi
  [[ -n ${pg_base:-} ]] && rm -rf "$pg_base"
  rm -rf "$work"
}
trap cleanup EXIT

step "build the wheel"
# The build backend is the lock's setuptools, already in .venv (make setup).
.venv/bin/pip wheel --quiet --no-deps --no-build-isolation -w "$work/dist" .
wheel=$(echo "$work"/dist/engram-*.whl)

step "install it into a fresh venv from the lock"
"$python" -m venv "$work/venv"
echo "engram[embedder] @ file://$wheel --hash=sha256:$(sha256sum "$wheel" | cut -d' ' -f1)" \
  > "$work/engram.txt"
# --no-compile: byte-compiling all of torch costs more than the check itself;
# what runs compiles on import.
"$work/venv/bin/pip" install --quiet --no-compile --require-hashes \
  -r deploy/requirements-embedder.lock -r "$work/engram.txt"

cd "$work"  # nothing of the checkout from here on
unset PYTHONPATH
export ENGRAM_PORT_OFFSET=$offset
engram=$work/venv/bin/engram
where=$("$work/venv/bin/python" -c 'import engram_cli; print(engram_cli.__file__)')
[[ $where == "$work/venv/"* ]] || { echo "engram_cli came from $where, not the venv" >&2; exit 1; }
if [[ $(id -u) == 0 ]]; then  # root: Postgres in a base of its own, removed at the end
  "$work/venv/bin/python" -c 'from engram_runner.pgdirs import DEFAULT_BASE, ensure_base; ensure_base(DEFAULT_BASE)'
  pg_base=/var/lib/engram-pg/dist-check-$$
  export ENGRAM_POSTGRES_BASE=$pg_base
fi

step "engram up (ports +$offset)"
"$engram" up --data-dir "$work/data" >"$work/up.out" 2>&1 &
up_pid=$!
until "$engram" status --data-dir "$work/data" >/dev/null 2>&1; do
  if ! kill -0 "$up_pid" 2>/dev/null; then cat "$work/up.out" >&2; exit 1; fi
  sleep 1
done
grep -q "engram ready in" "$work/up.out"

step "engram connect claude-desktop"
mkdir -p "$work/home"
"$engram" connect claude-desktop --home "$work/home" --data-dir "$work/data"

step "store and search through its bridge"
"$work/venv/bin/python" "$root/scripts/dist_client.py" \
  "$work/home/.config/Claude/claude_desktop_config.json"

step "engram down"
"$engram" down --data-dir "$work/data"
wait "$up_pid"
up_pid=""
grep -q "^stopped" "$work/up.out"
step "passed"
