"""Embedder metrics (the deploy/ dashboard has a panel for each)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

BATCH_SIZE = Histogram(
    "engram_embedder_batch_size", "Texts per encoded batch",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)
QUEUE_WAIT = Histogram(
    "engram_embedder_queue_wait_seconds", "Time a text waited before its batch ran",
    ["priority"], buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5),
)
ENCODE_TIME = Histogram(
    "engram_embedder_encode_seconds", "Model time per batch",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
QUEUE_DEPTH = Gauge("engram_embedder_queue_depth", "Texts waiting to be batched")
TEXTS = Counter("engram_embedder_texts_total", "Texts encoded")
TOKENS = Counter("engram_embedder_tokens_total", "Model tokens encoded (rate = tokens/s)")
REJECTED = Counter("engram_embedder_rejected_total", "Requests rejected: queue full")
DROPPED = Counter("engram_embedder_dropped_total",
                  "Texts dropped before encoding: deadline passed or caller gone", ["reason"])
