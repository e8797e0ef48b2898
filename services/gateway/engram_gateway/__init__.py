"""Gateway: the MCP endpoint. Validates, authorises, calls, shapes; no domain logic."""
