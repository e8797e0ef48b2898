"""The reliability campaign's parts: fault injection, load, fuzzing and the
peer comparison that evals/bench/reliability.py runs."""
