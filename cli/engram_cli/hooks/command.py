"""`engram hook <event>`: Claude Code hooks. Each reads the hook's JSON on
stdin and prints the hook's JSON on stdout, or nothing. They fail open: with
the stack down, a bad token or bad input a hook exits 0 with no output, so
the agent is never blocked. They import only the standard library (a hook
runs on every prompt) and call the gateway's REST routes with the client's
session id as X-Engram-Session, so hooks and tool calls share one session.

Environment: ENGRAM_URL (the MCP endpoint, default http://127.0.0.1:8750/mcp),
ENGRAM_TOKEN (or --token-file), ENGRAM_NAMESPACE, ENGRAM_HOOK_TIMEOUT_S,
ENGRAM_HOOK_BRIEFING_TOKENS, ENGRAM_HOOK_STATE_DIR, ENGRAM_HOOK_RECALL=0 (the
prompt hook does not search), ENGRAM_HOOK_RECALL_BAR, ENGRAM_HOOK_RECALL_MARGIN,
ENGRAM_HOOK_RECALL_TIMEOUT_S, ENGRAM_HOOK_DEBUG=1 (say on stderr why a hook did nothing)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from engram_cli.hooks.client import (
    DEFAULT_TIMEOUT_S,
    DEFAULT_URL,
    HookClient,
    read_token,
    session_header,
)
from engram_cli.hooks.recall import recall
from engram_cli.hooks.render import changes_text, fitted_briefing_text, recall_text
from engram_cli.hooks.wake import wake_for_mail

MAX_STDIN_BYTES = 1_000_000
DEFAULT_BRIEFING_TOKENS = 800
# The JSON reply is about twice the markdown rendered from it: the hook asks
# for this multiple of its budget and fits the rendered text to the budget.
JSON_PER_RENDERED = 3


class Skip(Exception):
    """Nothing to do (no token, no session id, a failed call): exit 0 silently."""


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


class Hook:
    """One hook run: the client's input, the gateway client and the state file."""

    def __init__(self, event_input: dict[str, Any], token_file: str) -> None:
        token = read_token(token_file)
        sid = event_input.get("session_id")
        if not token or not isinstance(sid, str) or not sid:
            raise Skip("no token or no session_id")
        self.input = event_input
        self.session = session_header(sid)
        self.url = os.environ.get("ENGRAM_URL", "") or DEFAULT_URL
        self.client = HookClient(self.url, token, self.session,
                                 os.environ.get("ENGRAM_NAMESPACE", ""),
                                 _env_float("ENGRAM_HOOK_TIMEOUT_S", DEFAULT_TIMEOUT_S))

    def _state_file(self) -> str:
        root = os.environ.get("ENGRAM_HOOK_STATE_DIR", "") or os.path.join(
            os.environ.get("XDG_CACHE_HOME", "") or os.path.expanduser("~/.cache"),
            "engram", "hooks")
        key = hashlib.sha256(f"{self.url}\0{self.session}".encode()).hexdigest()[:32]
        return os.path.join(root, f"{key}.json")

    def load_state(self) -> dict[str, Any]:
        try:
            with open(self._state_file()) as f:
                state = json.load(f)
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) else {}

    def save_state(self, **changes: Any) -> None:
        state = {**self.load_state(), **changes}
        path = self._state_file()
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(state, f)
        os.replace(tmp, path)

    def load_cursor(self) -> str:
        return str(self.load_state().get("cursor", ""))

    def save_cursor(self, cursor: str) -> None:
        self.save_state(cursor=cursor)

    def forget_cursor(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._state_file())

    def changes(self, since: str) -> dict[str, Any]:
        reply = self.client.get("/v1/session/changes", {"since": since} if since else None)
        if not isinstance(reply, dict) or not reply.get("cursor"):
            raise Skip("session_changes failed")
        self.save_cursor(str(reply["cursor"]))
        return reply


def _context(event_name: str, text: str) -> dict[str, Any] | None:
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}


def _open_sessions(hook: Hook) -> int:
    try:
        return int(hook.client.last_headers.get("x-engram-open-sessions", "1"))
    except ValueError:
        return 1


def shared_token_note(hook: Hook, always: bool) -> str:
    """Say so when other sessions are open on this token: the gateway then
    cannot bind this session's header-less tool calls (docs/hooks.md). Once
    per change of the count, unless `always`."""
    count = _open_sessions(hook)
    told = hook.load_state().get("told_open")
    hook.save_state(told_open=count)
    if count < 2 or (told == count and not always):
        return ""
    return (f"engram: {count} sessions are open on this token, and tool calls carry no "
            "session, so engram cannot tell this session's tool calls from the others': "
            "until they end, those calls share one episode and these notes miss facts read "
            "through tools. A token per session avoids it (engram token create).")


def _joined(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def session_start(hook: Hook) -> dict[str, Any] | None:
    """The briefing as context, its rendered text within the token budget;
    starts the cursor the prompt hook reads from."""
    budget = max(100, min(int(_env_float("ENGRAM_HOOK_BRIEFING_TOKENS",
                                          DEFAULT_BRIEFING_TOKENS)), 8000))
    briefing = hook.client.get("/v1/session/briefing",
                               {"token_budget": min(budget * JSON_PER_RENDERED, 8000)})
    with contextlib.suppress(Skip):  # else the first prompt starts the cursor
        hook.changes("")
    if not isinstance(briefing, dict):
        raise Skip("briefing failed")
    text, _ = fitted_briefing_text(briefing, budget)
    return _context("SessionStart", _joined(text, shared_token_note(hook, always=True)))


def prompt(hook: Hook) -> dict[str, Any] | None:
    """What changed since the last turn, and the few memories closest to the
    prompt (hooks_recall); nothing when neither has anything."""
    since = hook.load_cursor()
    changed = ""
    with contextlib.suppress(Skip):  # the recall still runs
        reply = hook.changes(since)
        changed = changes_text(reply) if since else ""
    shared = shared_token_note(hook, always=False)
    return _context("UserPromptSubmit", _joined(changed, recall_text(recall(hook)), shared))


def stop(hook: Hook) -> dict[str, Any] | None:
    """Urgent mail waiting: continue the session once per mail, with a short
    reason (hooks_wake). Otherwise close the session's episode."""
    woken = wake_for_mail(hook)
    if woken is not None:
        return woken
    return close(hook)


def close(hook: Hook) -> dict[str, Any] | None:
    """Close the session's episode (title and summary from its own memories:
    nothing from the transcript). Prints nothing. SessionEnd also tells the
    gateway the session is over, so its MCP session is free for the next."""
    ended = hook.input.get("hook_event_name") == "SessionEnd"
    hook.client.post("/v1/session/close", {"end": True} if ended else {})
    if ended:
        hook.forget_cursor()
    return None


def pre_compact(hook: Hook) -> dict[str, Any] | None:
    """Deliberately nothing (docs/hooks.md: pre-compact)."""
    return None


EVENTS: dict[str, Callable[[Hook], dict[str, Any] | None]] = {
    "session-start": session_start, "prompt": prompt, "stop": stop,
    "session-end": close, "pre-compact": pre_compact,
}


def _args(argv: list[str]) -> tuple[str, str]:
    event, token_file, rest = "", "", list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--token-file" and rest:
            token_file = rest.pop(0)
        elif arg.startswith("--token-file="):
            token_file = arg.split("=", 1)[1]
        elif not event and arg in EVENTS:
            event = arg
        else:
            raise Skip(f"usage: engram hook {{{'|'.join(EVENTS)}}} [--token-file F]; "
                       f"got {arg!r}")
    if not event:
        raise Skip(f"usage: engram hook {{{'|'.join(EVENTS)}}} [--token-file F]")
    return event, token_file


def run(argv: list[str]) -> int:
    """Always 0: a hook never blocks the agent."""
    try:
        event, token_file = _args(argv)
        if event == "pre-compact":
            return 0
        raw = sys.stdin.buffer.read(MAX_STDIN_BYTES)
        data = json.loads(raw or b"{}")
        if not isinstance(data, dict):
            raise Skip("stdin is not a JSON object")
        out = EVENTS[event](Hook(data, token_file))
        if out is not None:
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
    except Exception as exc:  # fail open, whatever went wrong
        if os.environ.get("ENGRAM_HOOK_DEBUG") == "1":
            sys.stderr.write(f"engram hook: {exc}\n")
    return 0


def exit_if_hook() -> None:
    """`engram hook ...` answers before the CLI's heavy imports (a hook runs
    on every prompt; the full CLI takes a third of a second to import)."""
    argv = sys.argv
    if len(argv) > 1 and argv[1] == "hook" and \
            os.path.basename(argv[0]) in ("engram", "__main__.py"):
        sys.exit(run(argv[2:]))


def run_hook_command(sub: Any) -> None:
    """Register `engram hook` on the CLI's subparsers (the slow path: the
    console script answers through exit_if_hook first)."""
    hook = sub.add_parser("hook", help="a Claude Code hook: " + ", ".join(EVENTS)
                          + " (stdin JSON in, JSON out; never blocks)")
    hook.add_argument("hook_args", nargs="...", help="the event and --token-file F")
    hook.set_defaults(func=lambda a: run(a.hook_args))
