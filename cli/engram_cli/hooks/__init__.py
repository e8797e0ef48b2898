"""`engram hook`: the coding agents' hooks (briefing, recall, wake on mail).
Standard library only, so that a hook answers in milliseconds."""
