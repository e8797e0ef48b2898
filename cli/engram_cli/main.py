"""`engram` command line: up, down, status, token, audit, backup, export, doctor, hook."""

from __future__ import annotations

from engram_cli.hooks.command import exit_if_hook, run_hook_command

exit_if_hook()  # before the imports below: a hook answers in milliseconds

import argparse
import signal
import sys
import time
from pathlib import Path

from engram_cli.audit.chains import run_audit
from engram_cli.audit.key import run_key_id
from engram_cli.backup.archive import run_backup, run_restore
from engram_cli.backup.keys_file import BackupRefused, operator_secret
from engram_cli.backup.schedule import BackupPlan, BackupSchedule
from engram_cli.board.mail import add_board_commands
from engram_cli.connect.command import add_commands as add_connect_commands
from engram_cli.ops.doctor import run_doctor
from engram_cli.ops.forget_writer import WriterArgs, run_forget_writer
from engram_cli.ops.status import run_status
from engram_cli.portable.command import run_export, run_import
from engram_cli.settings import CliSettings
from engram_cli.stdio.bridge import add_parser as add_mcp_stdio
from engram_kit.principals import ROLES, PrincipalStore
from engram_runner.autostart import StackStartError, hold_up_lock, stop_stack, up_lock_holder
from engram_runner.files import private_dir
from engram_runner.stack import TOKENS_FILE, Stack
from engram_runner.supervisor import Supervisor

BACKUP_FINISH_S = 300.0

SUPERVISE_INTERVAL_S = 0.5


def _settings(args: argparse.Namespace) -> CliSettings:
    overrides = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    if getattr(args, "replicas", None):
        overrides["replicas"] = args.replicas
    return CliSettings(**overrides)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _greet(stack: Stack, background: bool) -> None:
    out = sys.stdout
    if stack.first_token and background:  # a log file is no place for a token
        out.write(f"First start: an agent token was minted into {stack.data_dir / 'agent-token'}\n")
    elif stack.first_token:
        out.write("\nFirst start: an agent token for namespace 'default' was minted.\n"
                  f"It is shown once here and kept in {stack.data_dir / 'agent-token'}:\n\n"
                  f"  {stack.first_token}\n\nConnect Claude Code with:\n\n"
                  f"  {stack.connect_command()}\n\n")
    out.write(f"Ctrl-C stops the stack (from elsewhere: engram down --data-dir "
              f"{stack.data_dir}).\n")
    out.flush()


def _schedule(settings: CliSettings, args: argparse.Namespace) -> BackupSchedule | None:
    if not args.backup_every:
        return None
    return BackupSchedule(settings, BackupPlan(args.backup_every, args.keep, args.to),
                          operator_secret(args.backup_key_file, settings.backup_passphrase),
                          _say)


def cmd_up(args: argparse.Namespace) -> int:
    settings = _settings(args)
    try:
        stack = Stack(settings)
        schedule = _schedule(settings, args)
    except (RuntimeError, OSError, ValueError) as exc:  # a data dir not ours, bad --replicas
        sys.stderr.write(f"engram up failed: {exc}\n")
        return 1
    except BackupRefused as exc:
        sys.stderr.write(f"engram up failed: {exc.message}\n")
        return 2
    # Held until this process ends: one `engram up` per data dir (`engram down` finds it).
    lock = hold_up_lock(stack.data_dir)
    if lock is None:
        sys.stderr.write(f"engram up failed: engram already runs on {stack.data_dir} "
                         f"(engram up, pid {up_lock_holder(stack.data_dir)}); "
                         f"`engram down --data-dir {stack.data_dir}` stops it\n")
        return 1
    stopping = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    started = time.monotonic()
    out = sys.stdout
    out.write(f"starting engram from {settings.compose_file} (data: {stack.data_dir})\n")
    out.flush()
    try:
        stack.start()
    except RuntimeError as exc:
        sys.stderr.write(f"engram up failed: {exc}\n")
        return 1
    out.write(f"engram ready in {time.monotonic() - started:.1f}s: MCP at {stack.mcp_url}\n")
    _greet(stack, args.background)
    supervisor = Supervisor(stack, settings, _say, schedule)
    try:
        while not stopping:
            supervisor.tick()
            time.sleep(SUPERVISE_INTERVAL_S)
    finally:
        supervisor.close()
        if schedule is not None:  # a backup under way finishes before the database stops
            schedule.wait(BACKUP_FINISH_S)
        out.write("stopping engram...\n")
        out.flush()
        stack.stop()
    out.write("stopped\n")
    return 0


def cmd_down(args: argparse.Namespace) -> int:
    settings = _settings(args)
    try:
        said = stop_stack(settings.data_dir.resolve(), args.timeout)
    except StackStartError as exc:
        sys.stderr.write(f"engram down failed: {exc}\n")
        return 1
    sys.stdout.write(said + "\n")
    return 0


def _store(args: argparse.Namespace) -> PrincipalStore:
    return PrincipalStore(private_dir(_settings(args).data_dir.resolve()) / TOKENS_FILE)


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="engram", description="engram: memory for AI agents")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start the embedded stack in the foreground")
    up.add_argument("--data-dir", help="where all state lives (default: $ENGRAM_DATA_DIR)")
    up.add_argument("--replicas", help="run stateless services as several processes, e.g. "
                    "gateway=2,memory=2,cortex=2,dreamer=2,coordination=2,embedder=1 "
                    "(1..8 each; default one of each)")
    # What `engram mcp-stdio` starts: no token on the output, which goes to a log.
    up.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    up.add_argument("--backup-every", type=float, default=0.0, metavar="H",
                    help="take a backup every H hours (needs ENGRAM_BACKUP_PASSPHRASE or "
                         "--backup-key-file)")
    up.add_argument("--keep", type=int, default=7, help="scheduled backups to keep")
    up.add_argument("--to", default="", help="also copy each scheduled backup here")
    up.add_argument("--backup-key-file", default="")
    up.set_defaults(func=cmd_up)
    down = sub.add_parser("down", help="stop the stack running on a data dir (the one "
                          "`engram up` or `engram mcp-stdio` started)")
    down.add_argument("--data-dir", help="the stack's data dir (default: $ENGRAM_DATA_DIR)")
    down.add_argument("--timeout", type=float, default=120.0,
                      help="seconds to wait for it to stop (default 120)")
    down.set_defaults(func=cmd_down)
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
    verify.set_defaults(func=lambda a: run_audit(_settings(a), "verify", a.database_url))
    key_id.set_defaults(func=lambda a: run_key_id(_settings(a), a.database_url))
    show.set_defaults(func=lambda a: run_audit(_settings(a), "show", a.database_url,
                                               a.schema, a.namespace, a.action, a.limit))
    backup = sub.add_parser("backup", help="pg_dump the bank from the running stack")
    backup.add_argument("--data-dir")
    backup.add_argument("--out", default="", help="directory (default: <data-dir>/backups)")
    backup.add_argument("--keep", type=int, default=7, help="newest backups to keep")
    backup.add_argument("--to", default="", help="also copy it here (another disk), rotated")
    backup.add_argument("--verify", action="store_true", help="restore it into a scratch "
                        "database and compare row counts and audit chains")
    restore = sub.add_parser("restore", help="replace the bank with a backup (stack stopped)")
    restore.add_argument("archive")
    restore.add_argument("--data-dir")
    for cmd in (backup, restore):
        cmd.add_argument("--key-file", default="", help="the secret the keys file is "
                         "sealed under (default: $ENGRAM_BACKUP_PASSPHRASE)")
    backup.set_defaults(func=lambda a: run_backup(_settings(a), a.out, a.keep, a.verify,
                                                  a.key_file, a.to))
    restore.set_defaults(func=lambda a: run_restore(_settings(a), a.archive, a.key_file))
    exp = sub.add_parser("export", help="write one or all namespaces as JSONL")
    exp.add_argument("--namespace", action="append", default=[],
                     help="namespace to export (repeatable; default: all)")
    exp.add_argument("--out", required=True, help="the JSONL file to write")
    imp = sub.add_parser("import", help="load an export into empty namespaces of this stack")
    imp.add_argument("file")
    imp.add_argument("--namespace", action="append", default=[],
                     help="namespace to import (repeatable; exactly those the file holds)")
    imp.add_argument("--trust-signer", action="append", default=[], metavar="FINGERPRINT",
                     help="accept a file signed by this stack (`engram audit key-id` there)")
    imp.add_argument("--keep-foreign-digests", action="store_true",
                     help="import a file made under another audit key; its content digests "
                          "then match nothing here")
    for cmd in (exp, imp):
        cmd.add_argument("--data-dir")
        cmd.add_argument("--database-url", default="",
                         help="admin Postgres URL (default: the embedded stack's)")
    exp.set_defaults(func=lambda a: run_export(_settings(a), a.database_url, a.namespace, a.out))
    imp.set_defaults(func=lambda a: run_import(_settings(a), a.database_url, a.file,
                                               a.namespace, tuple(a.trust_signer),
                                               a.keep_foreign_digests))
    status = sub.add_parser("status", help="each process of the running stack: pid, uptime, "
                            "restarts, readiness")
    status.add_argument("--data-dir")
    status.add_argument("--json", action="store_true", help="one JSON document")
    status.set_defaults(func=lambda a: run_status(_settings(a), a.json))
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
    forget.set_defaults(func=lambda a: run_forget_writer(_settings(a), WriterArgs(
        a.principal, a.namespace, a.reason, a.since, a.until, a.dry_run, a.token_file)))
    doctor = sub.add_parser("doctor", help="check the installation and a running stack")
    doctor.add_argument("--data-dir")
    doctor.set_defaults(func=lambda a: run_doctor(_settings(a)))
    add_connect_commands(sub)
    add_board_commands(sub)
    run_hook_command(sub)
    add_mcp_stdio(sub)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    sys.exit(args.func(args))
