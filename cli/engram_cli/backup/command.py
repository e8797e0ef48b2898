"""`engram backup` and `engram restore`."""

from __future__ import annotations

import argparse

from engram_cli.backup.archive import run_backup, run_restore
from engram_cli.settings import from_args


def add_commands(sub: argparse._SubParsersAction) -> None:
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
    backup.set_defaults(func=lambda a: run_backup(from_args(a), a.out, a.keep, a.verify,
                                                  a.key_file, a.to))
    restore.set_defaults(func=lambda a: run_restore(from_args(a), a.archive, a.key_file))
