"""The tool registry's entries, one module per family of tools, and what
they share (the ToolSpec, argument types, the briefing)."""
