"""`engram up --backup-every H --keep N [--to DIR]`: the supervisor takes a
backup every H hours (the first H hours after the start), keeps the newest N
in the data directory's backups/ and, with --to, copies each one to DIR (a
directory on another disk), rotated there too. A backup runs on a thread of
its own so the processes stay watched while pg_dump works; a failed one is
logged and the next is still taken on time. The clock is injected so the
rotation is tested in hours that do not pass."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engram_cli.backup.archive import FAILURES, copy_off, take_backup
from engram_cli.settings import CliSettings
from engram_kit.errors import DomainError


@dataclass(frozen=True)
class BackupPlan:
    every_h: float
    keep: int
    to_dir: str = ""


class BackupSchedule:
    def __init__(self, settings: CliSettings, plan: BackupPlan, secret: bytes,
                 log: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        if plan.every_h <= 0 or plan.keep < 1:
            raise ValueError("--backup-every must be above 0 hours and --keep at least 1")
        self.settings = settings
        self.plan = plan
        self.secret = secret
        self.log = log
        self.clock = clock
        self.next_at = clock() + plan.every_h * 3600
        self.running: threading.Thread | None = None

    def tick(self) -> None:
        """Start a backup when one is due and none is still running."""
        if self.clock() < self.next_at or (self.running and self.running.is_alive()):
            return
        self.next_at = self.clock() + self.plan.every_h * 3600
        self.running = threading.Thread(target=self.take, name="backup", daemon=True)
        self.running.start()

    def take(self) -> Path | None:
        try:
            archive, rotated = take_backup(self.settings, "", self.plan.keep, self.secret)
            where = f"; copied to {copy_off(archive, self.plan.to_dir, self.plan.keep)}" \
                if self.plan.to_dir else ""
        except (DomainError, *FAILURES) as exc:
            self.log(f"scheduled backup failed: {exc}; the next is due in "
                     f"{self.plan.every_h:g}h")
            return None
        self.log(f"scheduled backup written: {archive}; {rotated} older rotated out{where}")
        return archive

    def wait(self, timeout_s: float) -> None:
        if self.running is not None:
            self.running.join(timeout_s)
