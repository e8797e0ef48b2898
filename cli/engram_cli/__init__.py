"""The engram command line: start the embedded stack, mint tokens, doctor."""
