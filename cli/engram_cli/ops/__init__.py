"""`engram status`, `engram doctor` and `engram forget-writer`: looking after a
running stack."""
