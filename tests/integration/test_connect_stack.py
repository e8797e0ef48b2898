"""`engram connect claude-code` against the running stack: the token it mints
is real, and the URL and header it writes into ~/.claude.json connect the
official MCP SDK client; after `disconnect` the token no longer works."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram_cli.main import build_parser
from engram_cli.stack import Stack

from ..helpers import call


def _engram(*argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return args.func(args)


async def test_the_config_written_for_claude_code_connects(stack: Stack, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    assert _engram("connect", "claude-code", "--home", str(home), "--data-dir",
                   str(stack.data_dir), "--url", stack.mcp_url, "--namespace", "connected") == 0
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]["engram"]
    assert server["type"] == "http"
    http = httpx2.AsyncClient(headers=server["headers"], timeout=30)
    async with Client(streamable_http_client(server["url"], http_client=http)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"memory_search", "memory_store", "briefing"} <= names
        stored = await call(client, "memory_store", {"text": "Connect test: the sky is teal."})
        found = await call(client, "memory_search", {"query": "what colour is the sky?"})
        assert found["entries"][0]["id"] == stored["id"]

    assert _engram("disconnect", "claude-code", "--home", str(home)) == 0
    assert not (home / ".claude.json").exists()
    async with httpx2.AsyncClient(timeout=30) as raw:
        refused = await raw.post(server["url"], headers=server["headers"],
                                 json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert refused.status_code == 401, refused.text
