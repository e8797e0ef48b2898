"""`engram token create|list|rotate|revoke`: the token store of a data dir."""

from __future__ import annotations

import argparse
import sys

from engram_cli.settings import from_args
from engram_kit.principals import ROLES, PrincipalStore
from engram_runner.files import private_dir
from engram_runner.stack import TOKENS_FILE


def _store(args: argparse.Namespace) -> PrincipalStore:
    return PrincipalStore(private_dir(from_args(args).data_dir.resolve()) / TOKENS_FILE)


def cmd_token_create(args: argparse.Namespace) -> int:
    try:
        token = _store(args).create(args.principal, args.role, args.namespace or [],
                                    args.read_namespace or [])
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    grants = [*(args.namespace or []), *(f"{n} (read)" for n in args.read_namespace or [])]
    sys.stdout.write(f"principal {args.principal!r} ({args.role}) for namespaces "
                     f"{', '.join(grants)}; the token is shown once:\n{token}\n")
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    for p in _store(args).list():
        grants = [*p.namespaces, *(f"{n}(read)" for n in p.read_namespaces)]
        sys.stdout.write(f"{p.name}\t{p.role}\t{','.join(grants)}\tcreated {p.created_at}"
                         f"{'  rotated ' + p.rotated_at if p.rotated_at else ''}"
                         f"\ttoken sha256 {p.token_sha256[:12]}...\n")
    return 0


def cmd_token_rotate(args: argparse.Namespace) -> int:
    try:
        token = _store(args).rotate(args.principal)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    sys.stdout.write(f"new token for {args.principal!r}; the old one no longer works; "
                     f"shown once:\n{token}\n")
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    try:
        _store(args).revoke(args.principal)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    sys.stdout.write(f"revoked {args.principal!r}: its token no longer works\n")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    token = sub.add_parser("token", help="manage bearer tokens")
    token_sub = token.add_subparsers(dest="token_command", required=True)
    create = token_sub.add_parser("create", help="mint a token for a new principal")
    create.add_argument("--principal", required=True)
    create.add_argument("--role", required=True, choices=ROLES)
    create.add_argument("--namespace", action="append", help="read-write grant (repeatable)")
    create.add_argument("--read-namespace", action="append", help="read-only grant")
    create.add_argument("--data-dir")
    create.set_defaults(func=cmd_token_create)
    for name, func, text in (("list", cmd_token_list, "list principals (never tokens)"),
                             ("rotate", cmd_token_rotate, "replace a principal's token"),
                             ("revoke", cmd_token_revoke, "remove a principal")):
        cmd = token_sub.add_parser(name, help=text)
        if name != "list":
            cmd.add_argument("--principal", required=True)
        cmd.add_argument("--data-dir")
        cmd.set_defaults(func=func)
