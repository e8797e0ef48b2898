"""`engram` command line: each command's parser sits beside the command
(its package's `add_commands`); this module only assembles them."""

from __future__ import annotations

from engram_cli.hooks.command import exit_if_hook, run_hook_command

exit_if_hook()  # before the imports below: a hook answers in milliseconds

import argparse
import sys

from engram_cli.audit.command import add_commands as add_audit
from engram_cli.backup.command import add_commands as add_backup
from engram_cli.board.mail import add_board_commands
from engram_cli.connect.command import add_commands as add_connect_commands
from engram_cli.ops.command import add_commands as add_ops
from engram_cli.ops.tokens import add_commands as add_tokens
from engram_cli.ops.up import add_commands as add_up_down
from engram_cli.portable.command import add_commands as add_portable
from engram_cli.stdio.bridge import add_parser as add_mcp_stdio


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="engram", description="engram: memory for AI agents")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (add_up_down, add_tokens, add_audit, add_backup, add_portable, add_ops,
                add_connect_commands, add_board_commands, run_hook_command, add_mcp_stdio):
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    sys.exit(args.func(args))
