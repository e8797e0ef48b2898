"""The embedded stack: infrastructure plus the six services as processes.

`engram up` and the test fixtures both drive this class, so tests exercise
exactly what users run."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
import urllib.request
from pathlib import Path

from engram_kit.ports import read_ports_file
from engram_kit.principals import PrincipalStore
from engram_runner import replicas
from engram_runner.files import open_log, private_dir
from engram_runner.infra import EmbeddedNats, EmbeddedPostgres
from engram_runner.secrets_store import load_or_mint, write_private
from engram_runner.settings import RunnerSettings
from engram_runner.topology import (
    INFRA,
    ServiceSpec,
    Topology,
    load_topology,
    required_variables,
    start_order,
)

TOKENS_FILE = "principals.json"
AGENT_TOKEN_FILE = "agent-token"


def ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as resp:  # noqa: S310 (loopback)
            return resp.status == 200
    except Exception:  # not listening yet, or 503: not ready
        return False


class Stack:
    def __init__(self, settings: RunnerSettings) -> None:
        self.settings = settings
        self.data_dir = settings.data_dir.resolve()
        names = required_variables(settings.compose_file.read_text())
        private_dir(self.data_dir)
        self.secrets = load_or_mint(self.data_dir / "secrets.json", names)
        self.topology: Topology = load_topology(settings.compose_file, settings.port_offset,
                                                self.data_dir, self.secrets)
        # ValueError with the bad entry in it: `engram up` says it and exits.
        self.replicas = replicas.parse_replicas(settings.replicas, self.topology.services)
        # Every service process by name (memory, or memory-1 .. memory-N).
        ordered = {n: self.topology.services[n] for n in start_order(self.topology.services)}
        self.instances = replicas.expand(ordered, self.replicas, self.data_dir / "run")
        self.postgres = EmbeddedPostgres(self.data_dir, self.topology.infra_ports["postgres"],
                                         self.secrets["POSTGRES_PASSWORD"],
                                         settings.postgres_base, settings.start_timeout_s)
        self.nats = EmbeddedNats(self.data_dir, self.topology.infra_ports["nats"],
                                 self.topology.nats_config, self.topology.nats_env)
        self.procs: dict[str, subprocess.Popen] = {}
        # When each process was last started: wall clock and monotonic.
        self.started: dict[str, tuple[float, float]] = {}
        self.first_token: str | None = None

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.topology.gateway_port}/mcp"

    @property
    def principals(self) -> PrincipalStore:
        return PrincipalStore(self.data_dir / TOKENS_FILE)

    def replica_names(self, service: str) -> list[str]:
        return replicas.instance_names(service, self.replicas.get(service, 1))

    @property
    def gateway_urls(self) -> list[str]:
        """Every gateway replica's MCP URL (the first is `mcp_url`)."""
        return [f"http://127.0.0.1:{self.instances[n].ports[8750]}/mcp"
                for n in self.replica_names("gateway")]

    def service_dsn(self, name: str) -> str:
        return self.topology.services[name].env["ENGRAM_DATABASE_URL"]

    @property
    def logs(self) -> Path:
        return self.data_dir / "logs"

    def _prepare_logs(self) -> None:
        """Root's service logs: a 0700 directory nobody else can write, so no
        one can plant a link there for root to follow."""
        if os.geteuid() == 0 and self.logs.is_dir() and not self.logs.is_symlink():
            os.chown(self.logs, 0, 0, follow_symlinks=False)  # older versions lent it out
        private_dir(self.logs)
        private_dir(self.data_dir / "run")

    def start(self) -> None:
        self._prepare_logs()
        if not (self.data_dir / TOKENS_FILE).exists():
            self.first_token = self.principals.create("agent", "agent", ["default"])
            write_private(self.data_dir / AGENT_TOKEN_FILE, self.first_token + "\n")
        self.postgres.start()
        self._mark("postgres")
        try:
            self.nats.start()
            self._mark("nats")
            self.nats.apply_streams(self.secrets["ENGRAM_NATS_ADMIN_PASSWORD"])
            for name in self.topology.jobs:
                self.run_job(name)
            for service in start_order(self.topology.services):
                self._start_replicas(service)
            self.wait_ready(list(self.instances), self.settings.start_timeout_s)
        except BaseException:
            self.stop()
            raise

    @staticmethod
    def _env(spec: ServiceSpec) -> dict[str, str]:
        return {**os.environ, **spec.env, "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1"}

    def run_job(self, name: str) -> None:
        """A one-shot compose service (restart: "no"), e.g. the migrations:
        it must finish, and succeed, before the services start."""
        spec, log = self.topology.jobs[name], self.logs / f"{name}.log"
        fd = open_log(log)
        try:
            code = subprocess.run(spec.command, env=self._env(spec), stdout=fd,
                                  stderr=subprocess.STDOUT, umask=0o077,
                                  timeout=self.settings.start_timeout_s).returncode
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{name} did not finish within "
                               f"{self.settings.start_timeout_s:.0f}s; see {log}") from None
        finally:
            os.close(fd)
        if code != 0:
            raise RuntimeError(f"{name} failed with code {code}; see {log}")

    def _start_replicas(self, service: str) -> None:
        """Start every replica of `service`; with more than one, learn the
        ports the others bound and give their callers every address."""
        names = self.replica_names(service)
        for name in names:
            if ports_file := self.instances[name].env.get("ENGRAM_PORTS_FILE"):
                Path(ports_file).unlink(missing_ok=True)  # a last run's ports
            self.start_service(name)
        if len(names) == 1:
            return
        first = self.instances[names[0]]
        for name in names[1:]:
            replicas.pin_ports(self.instances[name], self._bound_ports(name))
        for container, host in first.ports.items():
            replicas.spread(self.instances, f"127.0.0.1:{host}",
                            [f"127.0.0.1:{self.instances[n].ports[container]}" for n in names])

    def _bound_ports(self, name: str) -> dict[str, int]:
        path = Path(self.instances[name].env["ENGRAM_PORTS_FILE"])
        deadline = time.monotonic() + self.settings.start_timeout_s
        while (ports := read_ports_file(path)) is None:
            proc = self.procs[name]
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with code {proc.returncode}; "
                                   f"see {self.logs / f'{name}.log'}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} bound no ports within "
                                   f"{self.settings.start_timeout_s:.0f}s")
            time.sleep(0.05)
        return ports

    def start_service(self, name: str) -> None:
        spec = self.instances[name]
        fd = open_log(self.logs / f"{name}.log")
        try:
            self.procs[name] = subprocess.Popen(spec.command, env=self._env(spec), stdout=fd,
                                                stderr=subprocess.STDOUT, umask=0o077)
        finally:
            os.close(fd)
        self._mark(name)

    def _mark(self, name: str) -> None:
        self.started[name] = (time.time(), time.monotonic())

    def stop_service(self, name: str, grace_s: float = 15.0) -> None:
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def wait_ready(self, names: list[str], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        pending = list(names)
        while pending:
            for name in list(pending):
                proc = self.procs.get(name)
                if proc is not None and proc.poll() is not None:
                    log = self.logs / f"{name}.log"
                    raise RuntimeError(f"{name} exited with code {proc.returncode}; see {log}")
                if ready(self.instances[name].ready_url):
                    pending.remove(name)
            if pending and time.monotonic() > deadline:
                raise RuntimeError(f"not ready after {timeout_s:.0f}s: {', '.join(pending)}")
            if pending:
                time.sleep(0.2)

    def supervised(self) -> list[str]:
        """Every long-running process the stack starts, dependencies first."""
        return [*INFRA, *self.instances]

    def process(self, name: str) -> subprocess.Popen | None:
        if name == "postgres":
            return self.postgres.proc
        if name == "nats":
            return self.nats.proc
        return self.procs.get(name)

    def restart(self, name: str) -> None:
        """Start `name` again after it exited. Postgres runs its crash recovery;
        NATS keeps its JetStream store, and the streams are brought back to
        their settings in case they were lost."""
        if name == "postgres":
            self.postgres.start()
            self._mark(name)
        elif name == "nats":
            try:
                self.nats.start()
                self.nats.apply_streams(self.secrets["ENGRAM_NATS_ADMIN_PASSWORD"])
            except BaseException:
                self.nats.stop()  # a half-started server would hold the port
                raise
            self._mark(name)
        else:
            self.start_service(name)

    def log_of(self, name: str) -> Path:
        return {"postgres": self.postgres.log, "nats": self.nats.log}.get(
            name, self.logs / f"{name}.log")

    def probe(self, name: str) -> dict[str, str | int]:
        """How `engram status` asks whether `name` is ready."""
        if name in INFRA:
            return {"kind": name, "port": self.topology.infra_ports[name]}
        spec = self.instances[name]
        return {"kind": "http", "url": spec.ready_url, "service": spec.service,
                "replica": spec.replica}

    def stop(self) -> None:
        for name in reversed(self.instances):
            self.stop_service(name)
        self.nats.stop()
        self.postgres.stop()

    def connect_command(self) -> str:
        """How to connect Claude Code to this stack with the first agent token.
        The token is read from its file: a command line is kept in shell
        history and shown to every local user by ps."""
        return (f"engram connect claude-code --url {shlex.quote(self.mcp_url)} "
                f"--token-file {shlex.quote(str(self.data_dir / AGENT_TOKEN_FILE))}")
