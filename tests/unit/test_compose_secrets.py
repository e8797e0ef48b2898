"""docker-compose.yml holds no secret of its own: every password, token or key
a container gets is a required variable (`${VAR:?...}`) from .env, never a
literal nor a default, and Grafana's admin password is one of them (left
unset, Grafana starts with admin/admin)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SECRET = re.compile(r"PASSWORD|_TOKEN$|SECRET|_KEY$")
REQUIRED = re.compile(r"\$\{[A-Z0-9_]+:\?[^}]*\}")


def compose_env() -> dict[str, dict[str, str]]:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    return {name: {k: str(v) for k, v in (spec.get("environment") or {}).items()}
            for name, spec in services.items()}


def test_every_secret_in_compose_is_a_required_variable() -> None:
    loose = [f"{service}: {key}={value}" for service, env in compose_env().items()
             for key, value in env.items()
             if SECRET.search(key) and not REQUIRED.fullmatch(value)]
    assert loose == []


def test_grafana_has_no_default_admin_password() -> None:
    grafana = compose_env()["grafana"]
    assert REQUIRED.fullmatch(grafana.get("GF_SECURITY_ADMIN_PASSWORD", "")), grafana
    assert grafana["GF_AUTH_ANONYMOUS_ENABLED"] == "false"
