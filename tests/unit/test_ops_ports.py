"""The services' ops ports stay unauthenticated by decision
(docs/decisions/0019): they must stay read-only and local. Only GET on the
four health and metrics paths; loopback unless a deployment says otherwise;
compose publishes them on the host's loopback only."""

from __future__ import annotations

from pathlib import Path

import yaml
from starlette.testclient import TestClient

from engram_kit.health import Readiness
from engram_kit.ops_http import ops_app
from engram_kit.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]
PATHS = ["/healthz", "/readyz", "/health", "/metrics"]


def test_the_ops_app_only_reads() -> None:
    client = TestClient(ops_app(Readiness("memory")))
    assert all(client.get(p).status_code in (200, 503) for p in PATHS)
    assert {client.post(p, content=b"x").status_code for p in PATHS} == {405}
    assert {client.delete(p).status_code for p in PATHS} == {405}
    assert client.get("/debug").status_code == 404


def test_ops_ports_bind_loopback_by_default() -> None:
    assert ServiceSettings.model_fields["http_host"].default == "127.0.0.1"
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    published = [port for spec in services.values() for port in spec.get("ports", [])]
    assert published and all(str(p).startswith("127.0.0.1:") for p in published), published
