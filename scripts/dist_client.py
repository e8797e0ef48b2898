"""Store and search through the stdio server a Claude Desktop config names,
with the official MCP SDK's stdio client (scripts/dist_check.sh runs it with
the installed engram's interpreter)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

from mcp import Client, StdioServerParameters


def require(ok: bool, what: object) -> None:
    if not ok:
        raise SystemExit(f"dist check failed: {what}")


async def check(config: Path) -> None:
    server = json.loads(config.read_text())["mcpServers"]["engram"]
    env = {**os.environ, **server.get("env", {})}
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env)
    text = f"The installed engram remembers its wheel ({uuid.uuid4().hex[:8]})."
    async with Client(params) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        require("memory_store" in tools and "memory_search" in tools, tools)
        stored = await client.call_tool("memory_store", {"text": text})
        require(not stored.is_error, stored.content)
        found = await client.call_tool("memory_search", {"query": "installed engram wheel"})
        require(not found.is_error, found.content)
    require(text in json.dumps(found.structured_content), found.structured_content)
    sys.stdout.write(f"stored and found through {server['command']} {server['args'][0]} "
                     f"({len(tools)} tools)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config", type=Path, help="claude_desktop_config.json")
    asyncio.run(check(parser.parse_args().config))


if __name__ == "__main__":
    main()
