"""`engram forget-writer`: undo a rogue or broken agent from the command
line. It calls the running stack's gateway (POST /v1/operator/forget-writer)
with an operator's bearer token, read from a file so it stays out of the
process list and shell history; the gateway checks the role and audits it."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx

from engram_cli.settings import CliSettings
from engram_runner.secrets_store import load_or_mint
from engram_runner.topology import load_topology, required_variables


@dataclass(frozen=True)
class WriterArgs:
    principal: str
    namespace: str
    reason: str
    since: str | None
    until: str | None
    dry_run: bool
    token_file: str


def gateway_url(settings: CliSettings) -> str:
    data_dir = settings.data_dir.resolve()
    names = required_variables(settings.compose_file.read_text())
    secrets = load_or_mint(data_dir / "secrets.json", names)
    topo = load_topology(settings.compose_file, settings.port_offset, data_dir, secrets)
    return f"http://127.0.0.1:{topo.gateway_port}"


def run_forget_writer(settings: CliSettings, a: WriterArgs) -> int:
    try:
        token = Path(a.token_file).read_text().strip()
    except OSError as exc:
        sys.stderr.write(f"error: cannot read the token file: {exc}\n")
        return 2
    body = {"principal": a.principal, "reason": a.reason, "since": a.since, "until": a.until,
            "dry_run": a.dry_run}
    try:
        reply = httpx.post(f"{gateway_url(settings)}/v1/operator/forget-writer", json=body,
                           headers={"Authorization": f"Bearer {token}",
                                    "X-Engram-Namespace": a.namespace}, timeout=120)
    except httpx.HTTPError as exc:
        sys.stderr.write(f"error: the gateway did not answer ({exc}); is the stack up?\n")
        return 1
    if reply.status_code != 200:
        sys.stderr.write(f"error {reply.status_code}: {reply.text}\n")
        return 1
    sys.stdout.write(json.dumps(reply.json(), indent=2) + "\n")
    return 0
