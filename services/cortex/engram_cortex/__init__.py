"""Cortex service: canonical facts with kinds, verdicts, evidence and time."""
