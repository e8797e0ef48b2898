"""Where the embedded Postgres lives when engram runs as root.

Postgres refuses to run as root, so it runs as an OS user of its own, one
per stack (`os_user_for`): one stack's Postgres cannot read another's files.
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
import time
from pathlib import Path

from engram_runner.files import UnsafePath

# Earlier versions ran every stack's Postgres as this one user; a directory
# it owns is taken over by the stack's own user (`adopt_home`).
PG_OS_USER = "embedded_postgres"
PG_USER_PREFIX = "engram_pg_"
DEFAULT_BASE = Path("/var/lib/engram-pg")
BASE_MODE = 0o711
USERADD_TRIES = 5
USERADD_NAME_TAKEN = 9  # useradd's exit status when another process made the user first


def os_user_for(home: Path) -> str:
    """The OS user of the database in `home` (`<base>/<hash>`): named after
    the directory, so each stack's database has a user of its own."""
    return PG_USER_PREFIX + home.name[:12]


def ensure_os_user(name: str) -> pwd.struct_passwd:
    """The user, created if missing; `useradd` is retried while another
    process holds the password file's lock (stacks starting together)."""
    for attempt in range(USERADD_TRIES):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
        done = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                               "/usr/sbin/nologin", name], capture_output=True, text=True)
        if done.returncode not in (0, USERADD_NAME_TAKEN):
            time.sleep(0.2 * (attempt + 1))
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise RuntimeError(f"could not create the OS user {name}: {done.stderr.strip()}") \
            from None


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
                f"{parent} (above {what}) is closed to other users, so the database's OS "
                f"user cannot reach {path}; engram does not change its mode: put "
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
    adopt_if_legacy(home, user)
    info = os.lstat(home)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != user.pw_uid:
        raise UnsafePath(f"{home} must be a directory owned by {user.pw_name}")


def legacy_uid() -> int | None:
    try:
        return pwd.getpwnam(PG_OS_USER).pw_uid
    except KeyError:
        return None


def adopt_if_legacy(path: Path, user: pwd.struct_passwd) -> None:
    """A directory the shared user of earlier versions owns becomes `user`'s."""
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == legacy_uid():
        adopt_home(path, user)


def adopt_home(home: Path, user: pwd.struct_passwd) -> None:
    """Give a database directory laid out by an earlier version (owned by the
    shared user) to the stack's own user. Links are changed, never followed;
    a file with a second hard link (a name planted for root to hand over)
    stops it."""
    for top, dirs, files in os.walk(home, topdown=False):
        for name in files + dirs:
            path = os.path.join(top, name)
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                raise UnsafePath(f"{path} has {info.st_nlink} hard links; move it away "
                                 f"and start again")
            os.lchown(path, user.pw_uid, user.pw_gid)
    os.lchown(home, user.pw_uid, user.pw_gid)


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
