"""Which client session a principal's header-less MCP calls belong to.

Claude Code's hooks know the client's session (`session_id` on stdin, sent as
X-Engram-Session); its MCP tool calls carry only the bearer token (MCP
2026-07-28 has no protocol session; a handshake-era client adds the
Mcp-Session-Id the gateway minted). The hooks' session routes record the
hook sessions a principal has open. A tool call without X-Engram-Session is
bound to the principal's one open hook session; a handshake-era MCP session
to the one that no other live MCP session holds. When that is not exactly
one (no hooks, or two sessions open on one token) the call is not bound:
never a guess (docs/hooks.md).

State is per gateway process: a restarted gateway learns the open sessions
again from the next hook call."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Container
from dataclasses import dataclass

# A hook session with no hook call and no bound tool call for this long is
# taken as gone (a client that crashed sends no SessionEnd, and would leave
# the next session on its token ambiguous); its next prompt opens it again.
IDLE_S = 1800.0
# Bounds against a principal that invents session ids on every hook call.
MAX_OPEN_PER_PRINCIPAL = 64


@dataclass
class _HookSession:
    seen: float
    mcp: str = ""  # the MCP session bound to it ("": none yet)


class SessionBinder:
    def __init__(self, live_mcp: Callable[[], Container[str]] | None = None,
                 idle_s: float = IDLE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._live_mcp = live_mcp or (lambda: ())
        self._idle_s = idle_s
        self._clock = clock
        self._lock = threading.Lock()
        self._open: dict[str, dict[str, _HookSession]] = {}

    def hook_seen(self, principal: str, session: str) -> int:
        """A hook call of `principal` for client session `session`; returns
        how many sessions the principal has open."""
        with self._lock:
            sessions = self._sessions(principal)
            entry = sessions.get(session)
            if entry is None:
                if len(sessions) >= MAX_OPEN_PER_PRINCIPAL:
                    del sessions[min(sessions, key=lambda s: sessions[s].seen)]
                entry = sessions[session] = _HookSession(self._clock())
            entry.seen = self._clock()
            return len(sessions)

    def hook_ended(self, principal: str, session: str) -> None:
        """The client ended `session` (SessionEnd): its MCP session is free
        for the next one (Claude Code's /clear keeps the MCP connection)."""
        with self._lock:
            self._sessions(principal).pop(session, None)

    def resolve(self, principal: str, mcp_session: str) -> str:
        """The hook session a header-less call belongs to, or "" (unbound).
        `mcp_session`: the call's MCP session header ("" for none)."""
        with self._lock:
            sessions = self._sessions(principal)
            bound = self._bound(sessions, mcp_session)
            if bound:
                sessions[bound].seen = self._clock()  # a working session stays open
            return bound

    def _bound(self, sessions: dict[str, _HookSession], mcp_session: str) -> str:
        if not mcp_session:
            return next(iter(sessions)) if len(sessions) == 1 else ""
        for name, entry in sessions.items():
            if entry.mcp == mcp_session:
                return name
        live = self._live_mcp()
        free = [name for name, entry in sessions.items()
                if not entry.mcp or entry.mcp not in live]
        if len(free) != 1:
            return ""
        sessions[free[0]].mcp = mcp_session
        return free[0]

    def open_sessions(self, principal: str) -> int:
        with self._lock:
            return len(self._sessions(principal))

    def _sessions(self, principal: str) -> dict[str, _HookSession]:
        """The principal's open hook sessions, the idle ones dropped."""
        sessions = self._open.setdefault(principal, {})
        cutoff = self._clock() - self._idle_s
        for name in [n for n, e in sessions.items() if e.seen < cutoff]:
            del sessions[name]
        return sessions


BINDER = SessionBinder()  # replaced by build_app, which knows the live MCP sessions


def configure(binder: SessionBinder) -> None:
    global BINDER
    BINDER = binder
