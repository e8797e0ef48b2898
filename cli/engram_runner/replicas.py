"""Replicas of the stateless services on one machine (`engram up --replicas`).

A service with one replica runs as before, under its own name and its
published ports. A service with N > 1 replicas runs as <name>-1 .. <name>-N:
replica 1 keeps the published ports (so the MCP URL and metrics addresses do
not move), the others bind ports the OS picks (ENGRAM_PORTS_FILE tells which)
and keep them across supervised restarts. A caller of a replicated service is
given every replica's address in one target (`127.0.0.1:p1,127.0.0.1:p2`),
which the kit's channels balance round robin."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from engram_runner.topology import ServiceSpec

MAX_REPLICAS = 8


def parse_replicas(spec: str, services: Iterable[str]) -> dict[str, int]:
    """`gateway=2,memory=2` -> {"gateway": 2, "memory": 2}; a clear ValueError
    for an unknown service, a count outside 1..8, or a malformed entry."""
    known = list(services)
    counts: dict[str, int] = {}
    for entry in (e.strip() for e in spec.split(",")):
        if not entry:
            continue
        name, sep, value = (p.strip() for p in entry.partition("="))
        if not sep or not name or not value:
            raise ValueError(f"replicas entry {entry!r}: expected SERVICE=COUNT, "
                             "e.g. memory=2")
        if name not in known:
            raise ValueError(f"replicas entry {entry!r}: unknown service {name!r}; "
                             f"one of {', '.join(known)}")
        if name in counts:
            raise ValueError(f"replicas entry {entry!r}: {name} is given twice")
        if not value.isdigit() or not 1 <= int(value) <= MAX_REPLICAS:
            raise ValueError(f"replicas entry {entry!r}: the count is a whole number "
                             f"from 1 to {MAX_REPLICAS}")
        counts[name] = int(value)
    return counts


def instance_names(service: str, count: int) -> list[str]:
    return [service] if count == 1 else [f"{service}-{i}" for i in range(1, count + 1)]


def expand(services: dict[str, ServiceSpec], counts: dict[str, int],
           run_dir: Path) -> dict[str, ServiceSpec]:
    """Every process to run, by name, replicas of a service together."""
    out: dict[str, ServiceSpec] = {}
    for service, spec in services.items():
        names = instance_names(service, counts.get(service, 1))
        for index, name in enumerate(names, start=1):
            out[name] = _replica(spec, name, index, run_dir) if len(names) > 1 else spec
    return out


def _replica(spec: ServiceSpec, name: str, index: int, run_dir: Path) -> ServiceSpec:
    env = dict(spec.env)
    if spec.service == "gateway":
        # Nothing routes a session back to the replica that opened it.
        env["ENGRAM_MCP_STATELESS"] = "true"
    if index == 1:
        return dataclasses.replace(spec, name=name, env=env, replica=index)
    for key in spec.port_env:
        env[key] = "0"  # the OS picks; the ports file says which
    env["ENGRAM_PORTS_FILE"] = str(run_dir / f"{name}.ports.json")
    return dataclasses.replace(spec, name=name, env=env, ports={}, ready_url="",
                               replica=index)


def pin_ports(spec: ServiceSpec, bound: dict[str, int]) -> None:
    """A replica's OS-picked ports become its own: a restart binds them again,
    so the callers' address lists stay right."""
    for key, container in spec.port_env.items():
        port = bound[port_kind(key)]
        spec.env[key] = str(port)
        spec.ports[container] = port
    if "http" in bound and spec.ready_url == "":
        spec.ready_url = f"http://127.0.0.1:{bound['http']}/readyz"


def port_kind(env_key: str) -> str:
    """ENGRAM_GRPC_PORT -> grpc: the key a server writes in its ports file."""
    return env_key.removeprefix("ENGRAM_").removesuffix("_PORT").lower()


def spread(instances: dict[str, ServiceSpec], single: str, many: list[str]) -> None:
    """Point every caller that was given `single` (replica 1's address) at
    all of `many` instead."""
    joined = ",".join(many)
    for spec in instances.values():
        for key, value in spec.env.items():
            if value == single:
                spec.env[key] = joined
