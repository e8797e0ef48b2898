"""Run `engram hook <event>` as Claude Code does: the hook's JSON on stdin,
the environment naming the stack and the token."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENGRAM = Path(sys.executable).parent / "engram"
EVENT_NAMES = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "stop": "Stop",
               "session-end": "SessionEnd", "pre-compact": "PreCompact"}


@dataclass(frozen=True)
class HookRun:
    rc: int
    stdout: str
    stderr: str
    seconds: float

    def output(self) -> dict[str, Any]:
        """The hook's JSON output ({} for none)."""
        return json.loads(self.stdout) if self.stdout.strip() else {}

    def context(self) -> str:
        """The additionalContext the hook handed the agent ("" for none)."""
        if not self.stdout.strip():
            return ""
        return json.loads(self.stdout)["hookSpecificOutput"]["additionalContext"]


def hook_input(event: str, session_id: str, cwd: str = "/tmp") -> dict[str, Any]:
    """What Claude Code sends on stdin for `event`."""
    base = {"session_id": session_id, "transcript_path": f"/tmp/{session_id}.jsonl",
            "cwd": cwd, "permission_mode": "default", "hook_event_name": EVENT_NAMES[event]}
    extra = {"session-start": {"source": "startup", "model": "claude-sonnet-4-5"},
             "prompt": {"prompt": "what next?"},
             "stop": {"stop_hook_active": False, "last_assistant_message": "done"},
             "session-end": {"reason": "prompt_input_exit"},
             "pre-compact": {"trigger": "auto", "custom_instructions": ""}}[event]
    return {**base, **extra}


def codex_input(event: str, session_id: str, cwd: str = "/tmp") -> dict[str, Any]:
    """What Codex sends on stdin for `event` (it has no SessionEnd or
    PreCompact hook): the common fields, turn_id on turn-scoped events."""
    base = {"session_id": session_id, "transcript_path": None, "cwd": cwd,
            "hook_event_name": EVENT_NAMES[event], "model": "gpt-5-codex",
            "permission_mode": "default"}
    extra = {"session-start": {"source": "startup"},
             "prompt": {"turn_id": "turn-1", "prompt": "what next?"},
             "stop": {"turn_id": "turn-1", "stop_hook_active": False,
                      "last_assistant_message": "done"}}[event]
    return {**base, **extra}


def run_hook(event: str, session_id: str, env: dict[str, str],
             extra_args: list[str] | None = None,
             fields: dict[str, Any] | None = None, client: str = "claude-code") -> HookRun:
    cmd = [str(ENGRAM)] if ENGRAM.exists() else [sys.executable, "-m", "engram_cli"]
    payload = codex_input if client == "codex" else hook_input
    stdin = json.dumps({**payload(event, session_id), **(fields or {})}).encode()
    started = time.monotonic()
    proc = subprocess.run([*cmd, "hook", event, *(extra_args or [])], input=stdin,
                          env=env, capture_output=True, timeout=30)
    return HookRun(proc.returncode, proc.stdout.decode(), proc.stderr.decode(),
                   time.monotonic() - started)


def client_session() -> str:
    return str(uuid.uuid4())


def fenced(text: str) -> list[tuple[str, list[str]]]:
    """(the line above it, the lines inside) for each code fence in `text`,
    read as a markdown reader does: a fence closes on a line of backticks at
    least as long as the one that opened it."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("```"):
            ticks = len(lines[i]) - len(lines[i].lstrip("`"))
            j = i + 1
            while j < len(lines) and not (lines[j].startswith("`" * ticks)
                                          and lines[j].strip("`") == ""):
                j += 1
            assert j < len(lines), f"a fence that never closes: {text!r}"
            out.append((lines[i - 1], lines[i + 1:j]))
            i = j
        i += 1
    return out
