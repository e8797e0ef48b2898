"""`engram doctor`: what is installed, configured and answering, one line
per check, each saying what is wrong when it is. Every replica of a service
(`engram up --replicas`) is checked at its own address."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import sys
from pathlib import Path
from typing import Any

import httpx

from engram_cli.settings import CliSettings
from engram_runner.infra import EmbeddedNats, port_open
from engram_runner.secrets_store import load_or_mint
from engram_runner.stack import TOKENS_FILE
from engram_runner.supervisor import load_state
from engram_runner.topology import Topology, load_topology, required_variables

INFO_CHECKS = {
    "embedding_space": lambda v: (v == "verified", f"embedding space {v}"),
    "nats_connected": lambda v: (bool(v), "connected to NATS" if v else "NATS unreachable"),
    "extractor": lambda v: (True, f"extractor {v}" + (" (nothing is consolidated)"
                                                       if v == "none" else "")),
}


def _health(url: str) -> dict[str, Any] | None:
    """/health where a service has it (the gateway reports on /readyz)."""
    try:
        reply = httpx.get(url.replace("/readyz", "/health"), timeout=3)
        if reply.status_code == 404:
            reply = httpx.get(url, timeout=3)
        return reply.json()
    except (httpx.HTTPError, ValueError):
        return None


def _outbox_lag(url: str) -> float | None:
    try:
        text = httpx.get(url.replace("/readyz", "/metrics"), timeout=3).text
    except httpx.HTTPError:
        return None
    for line in text.splitlines():
        if line.startswith("engram_outbox_lag_seconds"):
            return float(line.split()[-1])
    return None


async def _nats_state(port: int, admin_password: str) -> tuple[bool, str]:
    import nats

    try:
        nc = await nats.connect(f"nats://127.0.0.1:{port}", connect_timeout=2,
                                max_reconnect_attempts=0, user="admin",
                                password=admin_password)
    except Exception as exc:
        return False, f"NATS not reachable: {exc!r}"
    try:
        js = nc.jetstream()
        info = await js.stream_info("ENGRAM_EVENTS")
        consumers = [c.name for c in await js.consumers_info("ENGRAM_EVENTS")]
        ok = "dreamer" in consumers
        return ok, (f"stream ENGRAM_EVENTS: {info.state.messages} messages; consumers "
                    f"{', '.join(consumers) or 'none'}" + ("" if ok else
                                                           " (the dreamer's is missing)"))
    except Exception as exc:
        return False, f"stream ENGRAM_EVENTS missing or unreadable: {exc!r}"
    finally:
        await nc.close()


def _bind_safe(topo: Topology, principals: int) -> tuple[bool, str]:
    host = topo.services["gateway"].env.get("ENGRAM_HTTP_HOST", "127.0.0.1")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        return True, f"gateway binds {host} (loopback)"
    return principals > 0, (f"gateway binds {host}: reachable from the network, "
                            f"{principals} principal(s) with tokens")


def _instances(topo: Topology, data_dir: Path) -> list[tuple[str, str, str]]:
    """(process, service, ready URL) of every service process: with `engram up`
    running, each replica from its state file, at the replica's own address;
    otherwise one per service, at the topology's address."""
    state, _ = load_state(data_dir)
    probes = [(p["name"], p.get("probe", {})) for p in (state or {}).get("processes", [])]
    found = [(name, str(probe.get("service") or name), str(probe.get("url", "")))
             for name, probe in probes if probe.get("kind") == "http"]
    return found or [(name, name, spec.ready_url) for name, spec in topo.services.items()]


def run_doctor(settings: CliSettings) -> int:
    problems = 0
    out = sys.stdout

    def report(ok: bool, what: str) -> None:
        nonlocal problems
        problems += 0 if ok else 1
        out.write(f"[{'ok' if ok else '!!'}] {what}\n")

    data_dir = settings.data_dir.resolve()
    report(settings.compose_file.exists(), f"topology file {settings.compose_file}")
    try:
        EmbeddedNats.binary()
        report(True, "nats-server binary installed")
    except RuntimeError as exc:
        report(False, str(exc))
    report(data_dir.exists(), f"data directory {data_dir}")
    tokens = data_dir / TOKENS_FILE
    count = len(json.loads(tokens.read_text()).get("principals", [])) if tokens.exists() else 0
    report(count > 0, f"{count} principal(s) with tokens in {tokens}")
    if not data_dir.exists():
        return 1
    names = required_variables(settings.compose_file.read_text())
    secrets = load_or_mint(data_dir / "secrets.json", names)
    topo = load_topology(settings.compose_file, settings.port_offset, data_dir, secrets)
    report(*_bind_safe(topo, count))
    for infra, port in topo.infra_ports.items():
        report(port_open(port), f"{infra} listening on 127.0.0.1:{port}")
    versions = set()
    for name, service, url in _instances(topo, data_dir):
        health = _health(url) if url else None
        if health is None:
            report(False, f"{name}: not answering {url or '(no address yet)'}")
            continue
        failing = [k for k, ok in health.get("checks", {}).items() if not ok]
        report(bool(health.get("ready")), f"{name} ready" + (
            f" (failing: {', '.join(failing)})" if failing else ""))
        versions.add(health.get("version", "unknown"))
        for key, check in INFO_CHECKS.items():
            if key in health:
                ok, text = check(health[key])
                report(ok, f"{name}: {text}")
        if service in ("memory", "cortex"):  # the services with a transactional outbox
            lag = _outbox_lag(url)
            report(lag is not None and lag < 60,
                   f"{name} outbox lag {lag if lag is not None else 'unknown'} s")
    report(len(versions) <= 1, f"service versions {', '.join(sorted(versions)) or 'unknown'}")
    if "nats" in topo.infra_ports:
        report(*asyncio.run(_nats_state(topo.infra_ports["nats"],
                                        secrets["ENGRAM_NATS_ADMIN_PASSWORD"])))
    out.write("all good\n" if problems == 0 else f"{problems} problem(s)\n")
    return 0 if problems == 0 else 1
