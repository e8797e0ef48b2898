"""`engram doctor`: what is installed, configured and answering."""

from __future__ import annotations

import json
import sys

from .infra import EmbeddedNats, port_open
from .secrets_store import load_or_mint
from .settings import CliSettings
from .stack import TOKENS_FILE, ready
from .topology import load_topology, required_variables


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
    for infra, port in topo.infra_ports.items():
        report(port_open(port), f"{infra} listening on 127.0.0.1:{port}")
    for name, spec in topo.services.items():
        report(ready(spec.ready_url), f"{name} ready ({spec.ready_url})")
    out.write("all good\n" if problems == 0 else f"{problems} problem(s)\n")
    return 0 if problems == 0 else 1
