"""The doors: MCP, REST and the browser console, each a thin adapter over the pipeline."""
