"""Derive the embedded stack from docker-compose.yml (the one topology).

For each compose service we keep its command, environment, published ports,
dependencies and readiness URL, then localise them: `<service>:<port>`
addresses become 127.0.0.1 with the published port (+ offset), 0.0.0.0
binds become loopback, /var/lib/engram becomes the data directory, and
`${VAR}` references are filled from the stack's secrets."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

INFRA = ("postgres", "nats")
CONTAINER_DATA = "/var/lib/engram"
_VAR = re.compile(r"\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}")
_LOOPBACK = re.compile(r"127\.0\.0\.1:(\d+)")
_ADDR = re.compile(r"\b([a-z][a-z0-9_-]*):(\d+)\b")


@dataclass
class ServiceSpec:
    name: str
    command: list[str]
    env: dict[str, str]
    ports: dict[int, int]  # container port -> host port (offset applied)
    depends_on: list[str] = field(default_factory=list)
    ready_url: str = ""
    # env key -> the container port it sets (ENGRAM_GRPC_PORT -> 8751)
    port_env: dict[str, int] = field(default_factory=dict)
    replica: int = 0  # 1..N under --replicas; 0 for a service run once
    service: str = ""  # the compose service this process runs


@dataclass
class Topology:
    services: dict[str, ServiceSpec]
    infra_ports: dict[str, int]  # "postgres"/"nats" -> host port (offset applied)
    required_vars: list[str]
    # One-shot services (compose `restart: "no"`, e.g. the migrations): run
    # to completion, in file order, before the services start.
    jobs: dict[str, ServiceSpec] = field(default_factory=dict)
    # The nats service's config file (its users and their permissions) on
    # this machine, and its environment (the users' passwords).
    nats_config: Path | None = None
    nats_env: dict[str, str] = field(default_factory=dict)

    @property
    def gateway_port(self) -> int:
        return self.services["gateway"].ports[8750]


def _published(ports: list[str], offset: int) -> dict[int, int]:
    mapping = {}
    for entry in ports:
        parts = str(entry).split(":")
        host, container = int(parts[-2]), int(parts[-1])
        mapping[container] = host + offset
    return mapping


def required_variables(text: str) -> list[str]:
    return sorted({m.group(1) for m in _VAR.finditer(text) if m.group(2) != "-"})


def interpolate(value: str, variables: dict[str, str]) -> str:
    def sub(m: re.Match) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3)
        if name in variables and variables[name] != "":
            return variables[name]
        if op == "-":
            return arg
        raise KeyError(f"{name}: {arg or 'required variable is not set'}")

    return _VAR.sub(sub, value)


def load_topology(compose_file: Path, offset: int, data_dir: Path,
                  variables: dict[str, str]) -> Topology:
    text = compose_file.read_text()
    doc = yaml.safe_load(text)
    raw = {n: s for n, s in doc["services"].items() if not s.get("profiles")}
    ports = {n: _published(s.get("ports", []), offset) for n, s in raw.items()}
    addresses = {f"{n}:{c}": f"127.0.0.1:{h}" for n, p in ports.items() for c, h in p.items()}

    def localise(value: str, own: dict[int, int]) -> str:
        value = interpolate(str(value), variables)
        value = _ADDR.sub(lambda m: addresses.get(m.group(0), m.group(0)), value)
        value = value.replace("0.0.0.0", "127.0.0.1").replace(CONTAINER_DATA, str(data_dir))
        if value.isdigit() and int(value) in own:
            value = str(own[int(value)])
        return value

    services, jobs = {}, {}
    for name, svc in raw.items():
        if name in INFRA:
            continue
        own = ports[name]
        raw_env = {k: interpolate(str(v), variables)
                   for k, v in (svc.get("environment") or {}).items()}
        env = {k: localise(v, own) for k, v in (svc.get("environment") or {}).items()}
        port_env = {k: int(v) for k, v in raw_env.items() if v.isdigit() and int(v) in own}
        command = [sys.executable if c == "python" else c for c in svc["command"]]
        test = (svc.get("healthcheck") or {}).get("test", [])
        ready = _probe_url(str(test[-1]), own) if test and str(test[-1]).startswith(
            "http") else ""
        spec = ServiceSpec(name, command, env, own, list(svc.get("depends_on") or []), ready,
                           port_env, service=name)
        (jobs if svc.get("restart") in ("no", False) else services)[name] = spec
    infra = {"postgres": ports["postgres"][5432], "nats": ports["nats"][4222]}
    nats = raw["nats"]
    nats_env = {k: interpolate(str(v), variables)
                for k, v in (nats.get("environment") or {}).items()}
    return Topology(services, infra, required_variables(text), jobs,
                    _mounted_config(nats, compose_file.parent), nats_env)


def _mounted_config(svc: dict, compose_dir: Path) -> Path | None:
    """The host file behind a service's `-c <path>`, through its volumes."""
    command = [str(c) for c in svc.get("command") or []]
    if "-c" not in command:
        return None
    inside = command[command.index("-c") + 1]
    for volume in svc.get("volumes") or []:
        host, _, rest = str(volume).partition(":")
        if rest.split(":")[0] == inside and host.startswith("."):
            return (compose_dir / host).resolve()
    raise ValueError(f"{inside} is not mounted from a file of this repository")


def _probe_url(url: str, own: dict[int, int]) -> str:
    """A healthcheck URL addresses the container itself: map its own port."""
    return _LOOPBACK.sub(lambda m: f"127.0.0.1:{own.get(int(m.group(1)), int(m.group(1)))}", url)


def start_order(services: dict[str, ServiceSpec]) -> list[str]:
    """Dependencies first (compose depends_on), stable otherwise."""
    order: list[str] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in order or name not in services:
            return
        if name in trail:
            raise ValueError(f"dependency cycle through {name}")
        for dep in services[name].depends_on:
            visit(dep, (*trail, name))
        order.append(name)

    for name in services:
        visit(name, ())
    return order
