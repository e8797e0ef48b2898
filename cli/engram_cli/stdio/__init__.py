"""`engram mcp-stdio`: the stdio MCP bridge to the gateway, which starts the
stack when none runs."""
