"""How `engram connect` changes a client's files, and how `disconnect` undoes it.

Every change is planned first (all files parsed, every edit checked) and
written only when the whole plan holds, so a malformed file stops the run
before anything is touched. A file is written atomically (temporary file,
then rename), never through a symlink and never outside its root (the home
or the project directory). Before a file is changed, its bytes are kept in a
backup beside it. The manifest records what was written, so `disconnect` can
put back the original bytes when nothing else changed the file since, and
otherwise removes only what connect added."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from engram_runner.files import PRIVATE_DIR, PRIVATE_FILE, write_atomic

BACKUP_INFIX = ".engram-backup-"


class ConnectError(RuntimeError):
    """A file connect must not or cannot change; the message says what to do."""


class Edit(Protocol):
    """One client file's change: `apply` is idempotent, `remove` undoes it
    (None: the file should not exist), `spec` rebuilds it from a manifest."""

    secret: bool

    def apply(self, path: Path, text: str | None) -> str: ...

    def remove(self, path: Path, text: str) -> str | None: ...

    def spec(self) -> dict[str, Any]: ...


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_target(path: Path, root: Path) -> None:
    """Refuse a symlink, a non-file, or a path whose real directory lies
    outside `root` (a linked parent would carry the write elsewhere)."""
    if path.is_symlink():
        raise ConnectError(f"{path} is a symlink; engram connect writes no file through a "
                           "link: replace it with a regular file, or use --print and edit "
                           "the file yourself")
    if path.exists() and not path.is_file():
        raise ConnectError(f"{path} exists and is not a regular file")
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.resolve().is_relative_to(root.resolve()):
        raise ConnectError(f"{path} leads outside {root} (a directory on the way is a link "
                           f"to {ancestor.resolve()}); engram connect writes only under {root}")


def read_bytes(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConnectError(f"cannot read {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConnectError(f"{path} is not UTF-8 text; nothing was changed") from None


def make_dirs(path: Path) -> list[str]:
    """mkdir -p with 0700 for the new ones; returns those it created, outermost first."""
    missing: list[Path] = []
    cur = path
    while not cur.exists():
        missing.append(cur)
        cur = cur.parent
    for d in reversed(missing):
        os.mkdir(d, PRIVATE_DIR)
    return [str(d) for d in reversed(missing)]


def write_backup(path: Path, data: bytes) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    backup = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}")
    n = 1
    while backup.exists() or backup.is_symlink():
        n += 1
        backup = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}-{n}")
    write_atomic(backup, data, PRIVATE_FILE)
    return backup


@dataclass
class FileRecord:
    """What connect did to one file, kept in the manifest."""

    path: str
    root: str
    existed: bool
    spec: dict[str, Any]
    written_sha256: str
    original_sha256: str = ""
    original_mode: int = 0
    backup: str = ""
    # False once someone else changed the file between two connects: the
    # backup then no longer holds "the file without connect's change".
    restorable: bool = True
    created_dirs: list[str] = field(default_factory=list)
    # Backups a later connect made of connect's own earlier version: dropped
    # with the first backup when the original comes back.
    own_backups: list[str] = field(default_factory=list)


@dataclass
class Planned:
    path: Path
    root: Path
    edit: Edit
    before: bytes | None
    after: bytes

    @property
    def changes(self) -> bool:
        return self.before != self.after


def plan(path: Path, root: Path, edit: Edit) -> Planned:
    check_target(path, root)
    before = read_bytes(path)
    text = None if before is None else decode(path, before)
    return Planned(path, root, edit, before, edit.apply(path, text).encode("utf-8"))


def commit(p: Planned, prior: FileRecord | None) -> tuple[FileRecord | None, Path | None]:
    """Write one planned change; returns its record (None: connect changed
    nothing there, so disconnect has nothing to undo) and the backup made."""
    if not p.changes:
        return prior, None
    created = make_dirs(p.path.parent)
    backup = write_backup(p.path, p.before) if p.before is not None else None
    old_mode = stat.S_IMODE(p.path.stat().st_mode) if p.before is not None else 0
    mode = PRIVATE_FILE if p.edit.secret or p.before is None else old_mode
    write_atomic(p.path, p.after, mode)
    if prior is not None:  # a second connect changed it again (new URL, token, ...)
        ours = p.before is not None and sha256(p.before) == prior.written_sha256
        prior.restorable = prior.restorable and ours
        if ours and backup:
            prior.own_backups.append(str(backup))
        prior.written_sha256, prior.spec = sha256(p.after), p.edit.spec()
        return prior, backup
    return FileRecord(str(p.path), str(p.root), p.before is not None, p.edit.spec(),
                      sha256(p.after), sha256(p.before) if p.before is not None else "",
                      old_mode, str(backup or ""), True, created), backup


def undo(rec: FileRecord, edit: Edit) -> str:
    """Take connect's change out of one file; returns what was done, in words."""
    path = Path(rec.path)
    check_target(path, Path(rec.root))
    current = read_bytes(path)
    if current is None:
        return f"{path}: already gone"
    backup = Path(rec.backup) if rec.backup else None
    if rec.restorable and sha256(current) == rec.written_sha256:
        if not rec.existed:
            path.unlink()
            _drop(rec.own_backups)
            _remove_dirs(rec.created_dirs)
            return f"removed {path}"
        original = read_bytes(backup) if backup and not backup.is_symlink() else None
        if backup and original is not None and sha256(original) == rec.original_sha256:
            write_atomic(path, original, rec.original_mode)
            _drop([str(backup), *rec.own_backups])
            return f"restored {path} byte for byte"
    after = edit.remove(path, decode(path, current))
    if after is None:
        path.unlink()
        _remove_dirs(rec.created_dirs)
        return f"removed {path}"
    if after.encode("utf-8") == current:
        return f"{path}: nothing of engram's left in it"
    made = write_backup(path, current)
    write_atomic(path, after.encode("utf-8"), stat.S_IMODE(path.stat().st_mode))
    return f"removed engram's entries from {path} (it had changed since; backup: {made})"


def _drop(backups: list[str]) -> None:
    for b in backups:
        Path(b).unlink(missing_ok=True)


def _remove_dirs(dirs: list[str]) -> None:
    for d in reversed(dirs):
        try:
            os.rmdir(d)
        except OSError:  # not empty (someone else uses it) or already gone
            return


@dataclass
class Manifest:
    client: str
    namespace: str
    url: str
    token_file: str
    principal: str = ""  # set when connect minted the token (disconnect revokes it)
    data_dir: str = ""
    files: list[FileRecord] = field(default_factory=list)

    def record(self, path: Path) -> FileRecord | None:
        return next((r for r in self.files if r.path == str(path)), None)

    def put(self, rec: FileRecord) -> None:
        self.files = [r for r in self.files if r.path != rec.path] + [rec]


def load_manifest(path: Path) -> Manifest | None:
    data = read_bytes(path)
    if data is None:
        return None
    try:
        raw = json.loads(data)
        files = [FileRecord(**f) for f in raw.pop("files")]
        return Manifest(**raw, files=files)
    except (ValueError, TypeError, KeyError) as exc:
        raise ConnectError(f"{path} (engram connect's own record) is damaged ({exc}); "
                           "move it aside and remove engram's entries by hand") from None


def save_manifest(path: Path, manifest: Manifest) -> bool:
    """Write the manifest (0600: it holds what was written, tokens included);
    False when it was already up to date."""
    data = (json.dumps(asdict(manifest), indent=2) + "\n").encode("utf-8")
    if read_bytes(path) == data:
        return False
    make_dirs(path.parent)
    write_atomic(path, data, PRIVATE_FILE)
    return True
