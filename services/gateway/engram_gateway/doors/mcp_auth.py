"""Who an MCP call comes from: the bearer token verified against the
principal store (the SDK's TokenVerifier), read back as the pipeline's
`Identity`, and the client session the call belongs to."""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from engram_kit.principals import PrincipalStore

from ..pipeline.admit import Identity
from . import session_binding


class PrincipalTokenVerifier:
    """MCP TokenVerifier backed by the hashed principal store."""

    def __init__(self, store: PrincipalStore) -> None:
        self.store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        principal = await self.store.verify_async(token)
        if principal is None:
            return None
        return AccessToken(
            token=token, client_id=principal.name, scopes=[principal.role],
            subject=principal.name, claims={"namespaces": list(principal.namespaces),
                                            "read_namespaces": list(principal.read_namespaces)},
        )


def token_identity() -> Identity | None:
    """The principal of the request's verified token; None without one."""
    token = get_access_token()
    if token is None:
        return None
    claims = token.claims or {}
    return Identity(token.client_id, (token.scopes or [""])[0],
                    tuple(claims.get("namespaces", [])), tuple(claims.get("read_namespaces", [])))


def mcp_identity() -> Identity:
    """The principal of an MCP call (the transport rejects unauthenticated
    calls first)."""
    who = token_identity()
    if who is None:
        raise ToolError("not authenticated")
    return who


def session_id(ctx: Context) -> str:
    """The client's session: an `X-Engram-Session` header the client sends
    (it wins), else the hook session the call is bound to (clients such as
    Claude Code send their session id to hooks only: session_binding), else
    the MCP session header (handshake-era clients), else empty (the caller
    falls back to one rolling session per principal)."""
    request = getattr(ctx.request_context, "request", None)
    headers = getattr(request, "headers", None)
    if headers is None:
        return ""
    explicit = headers.get("x-engram-session", "")
    if explicit:
        return explicit
    mcp_session = headers.get("mcp-session-id", "")
    token = get_access_token()
    if token is None:
        return mcp_session
    return session_binding.BINDER.resolve(token.client_id, mcp_session) or mcp_session
