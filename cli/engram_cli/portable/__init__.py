"""`engram export` and `engram import`: signed JSONL exports, every row checked
before an import commits."""
