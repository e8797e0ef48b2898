"""The browser console at /console/: server-rendered pages over the same
registry operations the MCP tools and REST routes run (docs/console.md)."""

from __future__ import annotations

from fastapi import APIRouter

from engram_kit.principals import PrincipalStore

from ...clients import Backends
from ...net.proxies import networks
from ...settings import GatewaySettings
from .routes import Console
from .session import Sessions
from .web import ConsoleHeaders


def console_sessions(settings: GatewaySettings, store: PrincipalStore) -> Sessions | None:
    """The console's sessions, or None when no key is set (the console is off)."""
    key = settings.console_session_key
    return (Sessions(key.get_secret_value(), settings.console_session_ttl_s, store)
            if key is not None else None)


def build_console_router(sessions: Sessions | None, backends: Backends,
                         settings: GatewaySettings) -> APIRouter:
    return Console(sessions, backends, networks(settings.trusted_proxies)).router()


__all__ = ["ConsoleHeaders", "build_console_router", "console_sessions"]
