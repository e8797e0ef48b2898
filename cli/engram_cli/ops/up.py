"""`engram up` (the stack in the foreground, supervised, backups on a
schedule) and `engram down`."""

from __future__ import annotations

import argparse
import signal
import sys
import time

from engram_cli.backup.keys_file import BackupRefused, operator_secret
from engram_cli.backup.schedule import BackupPlan, BackupSchedule
from engram_cli.settings import CliSettings, from_args
from engram_runner.autostart import StackStartError, hold_up_lock, stop_stack, up_lock_holder
from engram_runner.stack import Stack
from engram_runner.supervisor import Supervisor

BACKUP_FINISH_S = 300.0

SUPERVISE_INTERVAL_S = 0.5


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
    settings = from_args(args)
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
    settings = from_args(args)
    try:
        said = stop_stack(settings.data_dir.resolve(), args.timeout)
    except StackStartError as exc:
        sys.stderr.write(f"engram down failed: {exc}\n")
        return 1
    sys.stdout.write(said + "\n")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
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
