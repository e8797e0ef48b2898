# The two commands a new machine needs: `make up` and `make test`.
# Both bootstrap the environment (`make setup`) themselves.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.engram-installed

.PHONY: setup up test lint proto proto-check bench-e2e bench-embedder bench-locomo bench-scale clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	# CPU torch first: otherwise a dependency would pull a multi-GB CUDA build.
	$(VENV)/bin/pip install --quiet torch==2.13.0
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $(STAMP)

up: setup
	$(VENV)/bin/engram up

test: setup
	$(VENV)/bin/pytest -q

lint: setup
	$(VENV)/bin/ruff check .

proto: setup
	PYTHON=$(VENV)/bin/python ./scripts/genproto.sh

proto-check: proto
	git diff --exit-code -- contracts || (echo "contracts/ drifted from proto/: run make proto and commit" >&2; exit 1)

bench-e2e: setup
	$(VENV)/bin/python evals/bench_mcp_latency.py

bench-embedder: setup
	$(VENV)/bin/python evals/bench_embedder.py

bench-scale: setup
	$(VENV)/bin/python evals/bench_scale.py

bench-locomo: setup
	$(VENV)/bin/python evals/bench_locomo.py

clean:
	rm -rf $(VENV)
