"""Per-principal guards in front of the MCP endpoint.

Every POST to /mcp (each JSON-RPC message, `initialize` included) takes one
token from the principal's request rate, and a principal may hold at most
`max_sessions` open MCP sessions, so one token cannot use up the gateway's
global session table. Refusals are HTTP 429 with a JSON-RPC error body,
which MCP clients surface as the request's error."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Container

from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import DEFAULT_SESSION_IDLE_TIMEOUT
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engram_kit.principals import PrincipalStore

from .. import limits

RATE_LIMITED = -32029  # JSON-RPC server-error range; no standard code exists


class McpGuard:
    """ASGI middleware. `live` holds the ids of the sessions the MCP session
    manager still serves (a session also ends by idle timeout, unseen here)."""

    def __init__(self, app: ASGIApp, store: PrincipalStore, max_sessions: int,
                 idle_timeout_s: float, live: Callable[[], Container[str]]) -> None:
        self.app = app
        self.store = store
        self.max_sessions = max_sessions
        self.idle_timeout_s = idle_timeout_s
        self.live = live
        self._sessions: dict[str, set[str]] = {}
        self._opening: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["method"] != "POST"
                or scope["path"].rstrip("/") != "/mcp"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        principal = (await self.store.verify_async(token)
                     if scheme.lower() == "bearer" and token else None)
        if principal is None:  # the MCP app answers 401
            await self.app(scope, receive, send)
            return
        try:
            limits.LIMITER.take(principal.name)
        except limits.RateLimited as exc:
            await _refuse(send, str(exc), exc.retry_after_s)
            return
        if not self._opens_session(headers) or self.max_sessions <= 0:
            await self.app(scope, receive, send)
            return
        await self._open(principal.name, scope, receive, send)

    @staticmethod
    def _opens_session(headers: dict[str, str]) -> bool:
        """A request without a session id opens one (the handshake-era
        protocol versions; later versions keep no sessions)."""
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER.lower())
        return (MCP_SESSION_ID_HEADER.lower() not in headers
                and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS))

    async def _open(self, name: str, scope: Scope, receive: Receive, send: Send) -> None:
        live = self.live()
        held = {sid for sid in self._sessions.get(name, ()) if sid in live}
        self._sessions[name] = held
        if len(held) + self._opening.get(name, 0) >= self.max_sessions:
            await _refuse(send, (
                f"session limit: principal {name!r} has {self.max_sessions} open MCP sessions "
                f"(ENGRAM_MAX_SESSIONS_PER_PRINCIPAL); end one (DELETE /mcp with its "
                f"Mcp-Session-Id) or wait until an idle one expires after "
                f"{self.idle_timeout_s:g} s"), None)
            return
        self._opening[name] = self._opening.get(name, 0) + 1
        counted = True

        def settle(session_id: str | None) -> None:
            nonlocal counted
            if counted:
                counted = False
                self._opening[name] -= 1
                if session_id:
                    self._sessions[name].add(session_id)

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                sid = dict(message.get("headers", [])).get(
                    MCP_SESSION_ID_HEADER.lower().encode())
                settle(sid.decode() if sid and message["status"] < 400 else None)
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            settle(None)


async def _refuse(send: Send, message: str, retry_after_s: float | None) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": RATE_LIMITED, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if retry_after_s is not None:
        headers.append((b"retry-after", str(max(1, math.ceil(retry_after_s))).encode()))
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def guard_mcp(mcp_app: ASGIApp, mcp: MCPServer, store: PrincipalStore,
              max_sessions: int) -> McpGuard:
    """`mcp_app` (built by mcp.streamable_http_app with the default idle
    timeout) behind the guard. The session manager has no public view of its
    open sessions; its table is read, never changed (mcp is pinned)."""
    return McpGuard(mcp_app, store, max_sessions, float(DEFAULT_SESSION_IDLE_TIMEOUT),
                    lambda: mcp.session_manager._server_instances)
