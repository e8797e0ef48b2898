"""`python -m engram_cli` is the `engram` command."""
from .main import main

main()
