"""One module per benchmark (`python -m evals.bench.<name>`, or its make
target: evals/registry.py); each writes one artefact under evals/results/."""
