"""What guards the HTTP connection before any door: heads, bodies, slow
clients, trusted proxies, the MCP session cap."""
