"""`engram connect` and `engram disconnect`: the MCP clients' config files,
edited so that disconnect takes back exactly what connect wrote."""
