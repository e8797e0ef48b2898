"""`engram connect` against the running stack: the token it mints is real,
the URL and header it writes into ~/.claude.json connect the official MCP SDK
client, the hooks it writes for Codex hand over the briefing; after
`disconnect` the token no longer works."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram_cli.connect.instructions import BEGIN
from engram_cli.main import build_parser
from engram_runner.stack import Stack

from ..helpers import call, mcp_client


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


def _codex_hook(command: str, event: str, session_id: str) -> subprocess.CompletedProcess:
    """Run a hook command from ~/.codex/hooks.json as Codex does: through the
    shell, with Codex's hook input on stdin."""
    stdin = {"session_id": session_id, "transcript_path": None, "cwd": "/tmp",
             "hook_event_name": event, "model": "gpt-5-codex", "permission_mode": "default"}
    stdin |= {"SessionStart": {"source": "startup"},
              "UserPromptSubmit": {"prompt": "what next?", "turn_id": "t1"}}.get(event, {})
    return subprocess.run(["sh", "-c", command], input=json.dumps(stdin), text=True,
                          capture_output=True, timeout=60)


async def test_codex_gets_the_briefing_from_the_hooks_connect_writes(
        stack: Stack, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    ns = f"codex-{uuid.uuid4().hex[:6]}"
    assert _engram("connect", "codex", "--home", str(home), "--data-dir", str(stack.data_dir),
                   "--url", stack.mcp_url, "--namespace", ns) == 0
    token = (home / ".engram" / "connect" / "codex.token").read_text().strip()
    rule = f"releases-{uuid.uuid4().hex[:6]} need a changelog entry"
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "fact_set", {"entity": "release-process", "attribute": "changelog",
                                        "value": rule, "kind": "RULE"})
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "Stop"}
    [[start]] = [g["hooks"] for g in hooks["SessionStart"]]
    run = _codex_hook(start["command"], "SessionStart", str(uuid.uuid4()))
    assert run.returncode == 0 and run.stderr == "", run
    out = json.loads(run.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert f"release-process.changelog = {rule}" in out["additionalContext"]
    agents = (home / ".codex" / "AGENTS.md").read_text()
    assert BEGIN in agents and "`briefing`" in agents

    assert _engram("disconnect", "codex", "--home", str(home)) == 0
    assert not (home / ".codex" / "hooks.json").exists()
    assert not (home / ".codex" / "AGENTS.md").exists()
    silent = _codex_hook(start["command"], "SessionStart", str(uuid.uuid4()))
    assert (silent.returncode, silent.stdout) == (0, ""), "a revoked token: nothing, no error"
