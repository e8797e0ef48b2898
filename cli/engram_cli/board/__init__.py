"""`engram board`: board commands for scripts (wait for mail)."""
