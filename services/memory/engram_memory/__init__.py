"""Memory service: the associative store (entries, hybrid retrieval, outbox)."""
