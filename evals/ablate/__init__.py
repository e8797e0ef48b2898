"""In-process ablations on LoCoMo: ranking variants scored on the tuning half
and judged on the held-out half (evals/harness/locomo_split.py)."""
