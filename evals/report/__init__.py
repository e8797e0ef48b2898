"""The report: docs/benchmarks.md, its plots, and the generated blocks in
README.md and docs/scaling.md, from the committed artefacts."""
