"""`engram audit verify|show|key-id`."""

from __future__ import annotations

import argparse

from engram_cli.audit.chains import run_audit
from engram_cli.audit.key import run_key_id
from engram_cli.settings import from_args


def add_commands(sub: argparse._SubParsersAction) -> None:
    audit = sub.add_parser("audit", help="read or verify the hash-chained audit logs")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = audit_sub.add_parser("verify", help="recompute every chain; exit 1 on damage")
    show = audit_sub.add_parser("show", help="recent audit rows, oldest first")
    key_id = audit_sub.add_parser("key-id", help="the fingerprint this stack signs exports "
                                  "with (compare it before --trust-signer)")
    show.add_argument("--schema", default="memory", help="memory, cortex or coordination")
    show.add_argument("--namespace", default="")
    show.add_argument("--action", default="", help="action prefix, e.g. fact. or lease.")
    show.add_argument("--limit", type=int, default=50)
    for cmd in (verify, show, key_id):
        cmd.add_argument("--data-dir")
        cmd.add_argument("--database-url", default="",
                         help="admin Postgres URL (default: the embedded stack's)")
    verify.set_defaults(func=lambda a: run_audit(from_args(a), "verify", a.database_url))
    key_id.set_defaults(func=lambda a: run_key_id(from_args(a), a.database_url))
    show.set_defaults(func=lambda a: run_audit(from_args(a), "show", a.database_url,
                                               a.schema, a.namespace, a.action, a.limit))
