"""Wiring only: settings -> guard checks -> app -> uvicorn (owns SIGTERM)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import uvicorn

from engram_kit.logging import configure_logging
from engram_kit.ports import bind_tcp, bound_port, write_ports_file
from engram_kit.principals import PrincipalStore

from .app import build_app
from .net.http_conn import ConnectionTable, guarded_h11
from .net.http_guard import MAX_HEAD_BYTES
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
    sock = bind_tcp(settings.http_host, settings.http_port)
    if settings.ports_file:
        write_ports_file(settings.ports_file, {"http": bound_port(sock)})
    connections = ConnectionTable(settings.max_unauthenticated_connections_per_address)
    server = uvicorn.Server(uvicorn.Config(
        build_app(settings, connections.authenticated), log_level="warning", access_log=False,
        loop=settings.event_loop.value, http=guarded_h11(connections, settings.head_timeout_s),
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        # Forwarded headers are trusted only from ENGRAM_TRUSTED_PROXIES
        # (proxies.py), not from uvicorn's default of any loopback peer.
        proxy_headers=False,
        timeout_graceful_shutdown=int(settings.shutdown_grace_s)))
    server.run(sockets=[sock])
