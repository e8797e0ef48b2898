"""The lab: benchmarks, ablations and probes run against the real stack, and
the report that writes their numbers into the docs. Run from the checkout as
modules (`python -m evals.bench.locomo`); evals/registry.py lists every
benchmark. Not part of the wheel."""
