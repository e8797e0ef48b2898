"""What the benchmarks share: the artefact and command helpers, data splits,
load generators and synthetic corpora."""
