"""Readiness: named dependency checks, reported by gRPC health and HTTP."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import Any

log = logging.getLogger(__name__)

Check = Callable[[], Awaitable[bool]]


def engram_version() -> str:
    """The installed engram distribution's version (doctor compares them)."""
    try:
        return metadata.version("engram")
    except metadata.PackageNotFoundError:
        return "unknown"


class Readiness:
    """A service is ready when every registered check passes."""

    def __init__(self, service: str) -> None:
        self.service = service
        self._checks: dict[str, Check] = {}
        self.state: dict[str, bool] = {}
        # Facts shown on /health that do not gate readiness; a callable is
        # evaluated at report time.
        self.info: dict[str, Any] = {"version": engram_version()}

    def add(self, name: str, check: Check) -> None:
        self._checks[name] = check
        self.state[name] = False

    @property
    def ready(self) -> bool:
        return all(self.state.values())

    async def evaluate(self) -> bool:
        for name, check in self._checks.items():
            try:
                self.state[name] = bool(await asyncio.wait_for(check(), timeout=2.0))
            except Exception as exc:  # a failing check means "not ready", reported below
                if self.state.get(name):
                    fields = {"check": name, "error": repr(exc)}
                    log.warning("readiness check failed", extra={"fields": fields})
                self.state[name] = False
        return self.ready

    def report(self) -> dict[str, Any]:
        info = {k: (v() if callable(v) else v) for k, v in self.info.items()}
        return {"service": self.service, "ready": self.ready, "checks": dict(self.state), **info}
