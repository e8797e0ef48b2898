"""Wiring only: settings -> guard checks -> app -> uvicorn (owns SIGTERM)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import uvicorn

from engram_kit.logging import configure_logging

from .app import build_app
from .principals import PrincipalStore
from .settings import GatewaySettings


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main() -> None:
    # The fields come from the environment, which pyright cannot see.
    settings = GatewaySettings()  # pyright: ignore[reportCallIssue]
    configure_logging(settings.service_name, settings.log_level)
    if not _is_loopback(settings.http_host) and PrincipalStore(
            Path(settings.tokens_file)).count() == 0:
        raise SystemExit(
            f"refusing to bind {settings.http_host}: no tokens are configured, so the MCP "
            "endpoint would be reachable by anyone on the network. Mint one with "
            "`engram token create` first, or bind 127.0.0.1."
        )
    uvicorn.run(
        build_app(settings), host=settings.http_host, port=settings.http_port,
        log_level="warning", access_log=False, timeout_graceful_shutdown=int(
            settings.shutdown_grace_s),
    )
