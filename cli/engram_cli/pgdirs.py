"""Where the embedded Postgres lives when engram runs as root.

Postgres refuses to run as root, so it runs as the OS user `PG_OS_USER`.
That user must reach its data directory, but the stack's data dir is root's
and 0700 (it holds the secrets), and its parents (e.g. /root) may be closed
too. Rather than loosening any of them, the database gets a directory of
its own: `<base>/<hash>`, owned by the database user and 0700, inside a
root-owned 0711 base (others may pass through it but not list or change
it). Root checks, and never changes, the modes of the base's parents."""

from __future__ import annotations

import contextlib
import errno
import os
import pwd
import stat
import subprocess
from pathlib import Path

from .files import UnsafePath

PG_OS_USER = "embedded_postgres"
DEFAULT_BASE = Path("/var/lib/engram-pg")
BASE_MODE = 0o711


def ensure_os_user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", name], check=True, capture_output=True)
        return pwd.getpwnam(name)


def check_reachable(path: Path, what: str, *, root_only: bool = False) -> None:
    """Every directory above `path` must be passable by other users (the
    database user walks it); with `root_only` also root's and writable by
    root alone, so nobody else can swap what lies below."""
    for parent in reversed(path.parents):
        info = os.stat(parent)
        if root_only and (info.st_uid != 0 or info.st_mode & 0o022):
            raise UnsafePath(f"{parent} (above {what}) must be owned by root and writable "
                             "only by root")
        if not info.st_mode & stat.S_IXOTH:
            raise UnsafePath(
                f"{parent} (above {what}) is closed to other users, so the database user "
                f"{PG_OS_USER} cannot reach {path}; engram does not change its mode: put "
                f"{what} under a directory other users may pass through"
                + (" (set ENGRAM_POSTGRES_BASE)" if what == "the database" else ""))


def ensure_base(base: Path) -> None:
    check_reachable(base, "the database", root_only=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(base, BASE_MODE)
    info = os.lstat(base)
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022
            or not info.st_mode & stat.S_IXOTH):
        raise UnsafePath(f"{base} must be a root-owned directory, writable only by root and "
                         f"passable by others (mode {BASE_MODE:o}); fix it or set "
                         "ENGRAM_POSTGRES_BASE to another one")


def ensure_home(home: Path, user: pwd.struct_passwd) -> None:
    """The database user's own 0700 directory; only root can create names in
    the base, so nobody can slip a link in between mkdir and chown."""
    try:
        os.mkdir(home, 0o700)
        os.chown(home, user.pw_uid, user.pw_gid, follow_symlinks=False)
    except FileExistsError:
        pass
    info = os.lstat(home)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != user.pw_uid:
        raise UnsafePath(f"{home} must be a directory owned by {user.pw_name}")


def adopt_old_pgdata(old: Path, pgdata: Path) -> None:
    """Earlier versions kept the database in <data dir>/postgres: move it
    (a rename: links inside are moved, never followed)."""
    if not (old / "PG_VERSION").exists() or os.path.lexists(pgdata):
        return
    try:
        os.rename(old, pgdata)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        raise UnsafePath(f"the database in {old} must move to {pgdata}, on another file "
                         f"system: stop engram, run `mv {old} {pgdata}`, and start it "
                         "again") from None
