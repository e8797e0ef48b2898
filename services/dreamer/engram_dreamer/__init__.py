"""Dreamer service: background consolidation fed by write events."""
