"""Each client's own configuration format and place, as connect writes it.

- Claude Code: an `http` server in `~/.claude.json` (user scope) or
  `<project>/.mcp.json` (project scope: a file meant to be shared, so its
  header names the ${ENGRAM_TOKEN} variable Claude Code expands, never the
  token itself); hooks in `~/.claude/settings.json`
  or `<project>/.claude/settings.local.json` (machine-specific paths, so the
  file Claude Code keeps out of version control).
- Codex: `[mcp_servers.engram]` with `url` and `bearer_token_env_var` in
  `~/.codex/config.toml`, and an env file that exports the variable; hooks
  in `~/.codex/hooks.json` (the same JSON shape and hook I/O as Claude
  Code's) and the standing instructions in `~/.codex/AGENTS.md`.
- Claude Desktop: a stdio server running `engram mcp-stdio` (no file of its
  own takes instructions: next_steps says where to paste them).
- Cursor: a `url` server with headers in `~/.cursor/mcp.json` (its user rules
  live in its settings, not in a file: next_steps says so)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from engram_cli.connect.edits import BlockEdit, FileEdit, JsonEdit, toml_check
from engram_cli.connect.files import Edit
from engram_cli.connect.instructions import instructions_edit

TOKEN_ENV = "ENGRAM_TOKEN"
URL_ENV = "ENGRAM_URL"
OFFSET_ENV = "ENGRAM_PORT_OFFSET"
# Seconds Claude Code waits for one engram hook before going on without it.
HOOK_TIMEOUT_S = 15
# Claude Code hook events and the `engram hook` event each one runs.
HOOK_EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt",
    "Stop": "stop",
    "SessionEnd": "session-end",
    "PreCompact": "pre-compact",
}
# Codex runs the same hook protocol for these events; it has no SessionEnd,
# and engram's PreCompact hook does nothing.
CODEX_HOOK_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt",
                     "Stop": "stop"}
TOML_BEGIN = "# engram connect: begin (engram disconnect codex removes this block)"
TOML_END = "# engram connect: end"


class Client(StrEnum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    CLAUDE_DESKTOP = "claude-desktop"
    CURSOR = "cursor"


@dataclass(frozen=True)
class Target:
    home: Path
    project: Path | None
    url: str
    token: str
    token_file: Path
    command: list[str]  # how to run this engram: [exe] or [python, -m, engram_cli]
    # The stack's data dir when no URL was given: a stdio bridge then starts
    # the stack on it when none runs (`engram mcp-stdio --data-dir`).
    data_dir: Path | None = None
    port_offset: int = 0


Prior = Callable[[Path], "dict[str, Any] | None"]
Planned = list[tuple[Path, Path, Edit]]  # (file, the root it must stay under, edit)


def engram_command() -> list[str]:
    """The absolute command that runs this very engram: the `engram` script
    that started us, else the one beside this interpreter, else `python -m`."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 and argv0.name == "engram" and os.access(argv0, os.X_OK):
        return [str(argv0.absolute())]
    beside = Path(sys.executable).absolute().with_name("engram")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [str(Path(sys.executable).absolute()), "-m", "engram_cli"]


def hook_command(t: Target, event: str) -> str:
    return (f"{URL_ENV}={shlex.quote(t.url)} {shlex.join(t.command)} hook {event} "
            f"--token-file {shlex.quote(str(t.token_file))}")


def http_server(t: Target, with_type: bool, by_reference: bool = False) -> dict[str, Any]:
    """An http server entry; `by_reference`: the header names the token's
    environment variable (expanded by the client) instead of holding it."""
    server: dict[str, Any] = {"type": "http"} if with_type else {}
    token = f"${{{TOKEN_ENV}}}" if by_reference else t.token
    server.update(url=t.url, headers={"Authorization": f"Bearer {token}"})
    return server


def token_export(t: Target) -> str:
    """The shell line that puts the token in the environment, read from its file."""
    return f'export {TOKEN_ENV}="$(cat {shlex.quote(str(t.token_file))})"'



def claude_desktop_config(home: Path, default_home: bool) -> Path:
    """Where Claude Desktop keeps its config on this platform (under --home
    the same layout, below that directory)."""
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA") if default_home else None
        base = Path(appdata) if appdata else home / "AppData" / "Roaming"
        return base / "Claude" / "claude_desktop_config.json"
    xdg = os.environ.get("XDG_CONFIG_HOME") if default_home else None
    return (Path(xdg) if xdg else home / ".config") / "Claude" / "claude_desktop_config.json"


def hook_groups(t: Target, events: dict[str, str]) -> dict[str, Any]:
    return {event: {"hooks": [{"type": "command", "command": hook_command(t, name),
                               "timeout": HOOK_TIMEOUT_S}]}
            for event, name in events.items()}


def _claude_code(t: Target, prior: Prior) -> Planned:
    root = t.project or t.home
    servers = root / ".mcp.json" if t.project else t.home / ".claude.json"
    settings = (root / ".claude" / "settings.local.json" if t.project
                else t.home / ".claude" / "settings.json")
    hooks = hook_groups(t, HOOK_EVENTS)
    server = http_server(t, True, by_reference=t.project is not None)
    return [(servers, root, JsonEdit(True, server=server, previous=prior(servers))),
            (settings, root, JsonEdit(False, hooks=hooks, previous=prior(settings)))]


def codex_env_file(home: Path) -> Path:
    return home / ".engram" / "connect" / "codex.env"


def codex_agents_file(home: Path) -> Path:
    """Codex's global instructions (it reads them at every start)."""
    return home / ".codex" / "AGENTS.md"


def _codex(t: Target, prior: Prior) -> Planned:
    config = t.home / ".codex" / "config.toml"
    table = {"url": t.url, "bearer_token_env_var": TOKEN_ENV}
    # A JSON string is a valid TOML basic string (same escapes).
    body = "[mcp_servers.engram]\n" + "".join(f"{k} = {json.dumps(v)}\n"
                                              for k, v in table.items())
    env = codex_env_file(t.home)
    line = token_export(t) + "\n"
    hooks, agents = t.home / ".codex" / "hooks.json", codex_agents_file(t.home)
    return [(config, t.home, BlockEdit(TOML_BEGIN, TOML_END, body, kind="toml",
                                       check=toml_check("mcp_servers", "engram", table),
                                       previous=prior(config))),
            (env, t.home, FileEdit(line, secret=False)),
            (hooks, t.home, JsonEdit(False, hooks=hook_groups(t, CODEX_HOOK_EVENTS),
                                     previous=prior(hooks))),
            (agents, t.home, instructions_edit(prior(agents)))]


def _claude_desktop(t: Target, prior: Prior, default_home: bool) -> Planned:
    config = claude_desktop_config(t.home, default_home)
    root = t.home if config.is_relative_to(t.home) else config.parent
    if t.data_dir is None:
        where, env = [], {URL_ENV: t.url}
    else:
        where = ["--data-dir", str(t.data_dir)]
        env = {OFFSET_ENV: str(t.port_offset)} if t.port_offset else {}
    server = {"command": t.command[0],
              "args": [*t.command[1:], "mcp-stdio", *where, "--token-file", str(t.token_file)],
              "env": env}
    return [(config, root, JsonEdit(False, server=server, previous=prior(config)))]


def _cursor(t: Target, prior: Prior) -> Planned:
    config = t.home / ".cursor" / "mcp.json"
    return [(config, t.home, JsonEdit(True, server=http_server(t, False),
                                      previous=prior(config)))]


def client_files(client: Client, t: Target, prior: Prior, default_home: bool) -> Planned:
    if t.project and client is not Client.CLAUDE_CODE:
        raise ValueError(f"--project is for claude-code only ({client} has no project scope "
                         "here)")
    if client is Client.CLAUDE_CODE:
        return _claude_code(t, prior)
    if client is Client.CODEX:
        return _codex(t, prior)
    if client is Client.CLAUDE_DESKTOP:
        return _claude_desktop(t, prior, default_home)
    return _cursor(t, prior)


def next_steps(client: Client, t: Target) -> str:
    if client is Client.CLAUDE_CODE and t.project:
        return (f"start Claude Code in {shlex.quote(str(t.project))} from a shell that ran "
                f"`{token_export(t)}` (.mcp.json names ${{{TOKEN_ENV}}}, not the token); "
                "`claude mcp list` shows engram, `/hooks` lists the hooks")
    if client is Client.CLAUDE_CODE:
        return "restart Claude Code; `claude mcp list` shows engram, `/hooks` lists the hooks"
    if client is Client.CODEX:
        env = codex_env_file(t.home)
        return (f"add this line to your shell profile, then start Codex from a new shell: "
                f". {shlex.quote(str(env))}")
    if client is Client.CLAUDE_DESKTOP:
        return ("quit and reopen Claude Desktop; engram's tools appear in its tools menu. "
                "It reads no instructions file: paste the output of `engram connect "
                "--print-instructions` into a project's instructions (or your profile "
                "preferences), and start a chat with the `briefing` prompt from the + menu")
    return ("restart Cursor; Settings > MCP lists engram with its tools. For the standing "
            "instructions, paste `engram connect --print-instructions` into Settings > "
            "Rules > User Rules, or run `engram connect --instructions <project>/AGENTS.md`")
