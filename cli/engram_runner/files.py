"""Owner-only files and directories of a stack.

Everything is created with its final mode (no moment in which another user
could open it) and never through a link: the data dir holds the stack's
secrets, tokens, logs and backups."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import IO

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafePath(RuntimeError):
    """A path the stack would write through is a link, or someone else's."""


def private_dir(path: Path, *, narrow: bool = True) -> Path:
    """Create `path` 0700 (missing parents as `mkdir -p` makes them; existing
    parents are never touched). An existing `path` must be a directory of
    this user; with `narrow` it is narrowed to 0700."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, PRIVATE_DIR)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"{path} must be a directory (it is a link or a file)")
    if info.st_uid != os.geteuid():
        raise UnsafePath(f"{path} belongs to uid {info.st_uid}; run engram as its owner "
                         "or choose a directory of your own")
    if narrow and stat.S_IMODE(info.st_mode) != PRIVATE_DIR:
        os.chmod(path, PRIVATE_DIR)
    return path


def _open(path: Path, flags: int) -> int:
    try:
        fd = os.open(path, flags, PRIVATE_FILE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(f"{path} is a symlink; engram writes no file through a link: "
                             "remove it") from None
        raise
    # A file left by an older version may be wider: narrow it through the fd.
    os.fchmod(fd, PRIVATE_FILE)
    return fd


def open_log(path: Path) -> int:
    """A log to append to: created 0600, refused when it is a symlink."""
    return _open(path, _WRITE | os.O_APPEND)


def open_private(path: Path) -> IO[str]:
    """A text file to (re)write: created 0600, refused when it is a symlink."""
    return os.fdopen(_open(path, _WRITE | os.O_TRUNC), "w", encoding="utf-8")


def write_atomic(path: Path, data: bytes, mode: int) -> None:
    """Write `data` into a new file created with `mode`, then rename it over
    `path`: never through a planted link, never seen half-written."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
