"""`python -m engram_cli` is the `engram` command."""
from engram_cli.main import main

main()
