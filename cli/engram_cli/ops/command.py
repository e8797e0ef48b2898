"""`engram status`, `engram forget-writer` and `engram doctor`."""

from __future__ import annotations

import argparse

from engram_cli.ops.doctor import run_doctor
from engram_cli.ops.forget_writer import WriterArgs, run_forget_writer
from engram_cli.ops.status import run_status
from engram_cli.settings import from_args


def add_commands(sub: argparse._SubParsersAction) -> None:
    status = sub.add_parser("status", help="each process of the running stack: pid, uptime, "
                            "restarts, readiness")
    status.add_argument("--data-dir")
    status.add_argument("--json", action="store_true", help="one JSON document")
    status.set_defaults(func=lambda a: run_status(from_args(a), a.json))
    forget = sub.add_parser("forget-writer", help="forget the entries and retract the facts "
                            "one principal wrote in a window (operator token)")
    forget.add_argument("principal", help="the writer whose writes go")
    forget.add_argument("--namespace", required=True)
    forget.add_argument("--reason", required=True)
    forget.add_argument("--since", default=None, help="ISO time: written at or after")
    forget.add_argument("--until", default=None, help="ISO time: written before")
    forget.add_argument("--dry-run", action="store_true", help="list what would change")
    forget.add_argument("--token-file", required=True, help="file holding an operator token")
    forget.add_argument("--data-dir")
    forget.set_defaults(func=lambda a: run_forget_writer(from_args(a), WriterArgs(
        a.principal, a.namespace, a.reason, a.since, a.until, a.dry_run, a.token_file)))
    doctor = sub.add_parser("doctor", help="check the installation and a running stack")
    doctor.add_argument("--data-dir")
    doctor.set_defaults(func=lambda a: run_doctor(from_args(a)))
