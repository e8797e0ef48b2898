"""One-off probes behind a decision (not benchmarks with targets): each
writes an artefact a decision record cites."""
