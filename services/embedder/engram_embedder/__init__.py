"""Embedder service: one batching encoder for the whole stack."""
