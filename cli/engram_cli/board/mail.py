"""`engram board wait-mail`: block until board mail waits for an agent, or
a timeout, for scripts. It polls the gateway's REST mail route (pending mail
is never consumed: receive is non-destructive), so it needs only a token.

Exit status: 0 mail waits (its JSON on stdout), 1 the timeout passed with
none, 2 the stack could not be asked (down, bad token, bad arguments)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from engram_cli.hooks.client import DEFAULT_URL, SESSION_RE, HookClient, read_token

EXIT_MAIL, EXIT_TIMEOUT, EXIT_ERROR = 0, 1, 2
MAX_TIMEOUT_S = 86_400.0


def _inbox(client: HookClient, limit: int) -> dict[str, Any] | None:
    reply = client.get("/v1/board/messages", {"limit": limit})
    if isinstance(reply, dict) and isinstance(reply.get("messages"), list):
        return reply
    return None


def wait_mail(args: argparse.Namespace) -> int:
    token = read_token(args.token_file or "")
    if not token:
        sys.stderr.write("error: no token (ENGRAM_TOKEN or --token-file)\n")
        return EXIT_ERROR
    if args.session and not SESSION_RE.fullmatch(args.session):
        sys.stderr.write("error: --session must be 1-128 characters of A-Z a-z 0-9 "
                         ". _ : @ / + = -\n")
        return EXIT_ERROR
    if not 0 <= args.timeout <= MAX_TIMEOUT_S or not 0.2 <= args.interval <= 60:
        sys.stderr.write("error: --timeout is 0..86400 s, --interval 0.2..60 s\n")
        return EXIT_ERROR
    url = args.url or os.environ.get("ENGRAM_URL", "") or DEFAULT_URL
    client = HookClient(url, token, args.session, args.namespace or "", timeout_s=5.0)
    deadline = time.monotonic() + args.timeout
    asked = False
    while True:
        inbox = _inbox(client, args.limit)
        if inbox is None and not asked:
            sys.stderr.write(f"error: could not read board mail at {url} (stack down or "
                             "token refused)\n")
            return EXIT_ERROR
        asked = True
        if inbox is not None and inbox["messages"]:
            sys.stdout.write(json.dumps(inbox) + "\n")
            return EXIT_MAIL
        left = deadline - time.monotonic()
        if left <= 0:
            return EXIT_TIMEOUT
        time.sleep(min(args.interval, left))


def add_board_commands(sub: Any) -> None:
    board = sub.add_parser("board", help="the agent board from scripts")
    board_sub = board.add_subparsers(dest="board_command", required=True)
    wait = board_sub.add_parser("wait-mail", help="block until board mail waits or the "
                                "timeout passes (exit 0 mail, 1 timeout, 2 error)")
    wait.add_argument("--timeout", type=float, default=300.0, help="seconds (default 300)")
    wait.add_argument("--interval", type=float, default=1.0, help="seconds between asks")
    wait.add_argument("--limit", type=int, default=50, choices=range(1, 51),
                      metavar="1..50", help="messages to print")
    wait.add_argument("--session", default="", help="the agent instance (X-Engram-Session) "
                      "whose mail to wait for; default: the token's own agent")
    wait.add_argument("--namespace", default="")
    wait.add_argument("--url", default="", help="the MCP endpoint (default $ENGRAM_URL)")
    wait.add_argument("--token-file", default="", help="default: $ENGRAM_TOKEN")
    wait.set_defaults(func=wait_mail)
