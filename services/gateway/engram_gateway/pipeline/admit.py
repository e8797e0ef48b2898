"""Bearer-token verification for the MCP endpoint, and who the caller is."""

from __future__ import annotations

import asyncio
import re
import uuid

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver.exceptions import ToolError

from engram_kit.context import NAMESPACE_RE, CallerContext
from engram_kit.principals import PrincipalStore

from ..tools.spec import Access


class PrincipalTokenVerifier:
    """MCP TokenVerifier backed by the hashed principal store."""

    def __init__(self, store: PrincipalStore) -> None:
        self.store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        principal = await asyncio.to_thread(self.store.verify, token)
        if principal is None:
            return None
        return AccessToken(
            token=token, client_id=principal.name, scopes=[principal.role],
            subject=principal.name, claims={"namespaces": list(principal.namespaces),
                                            "read_namespaces": list(principal.read_namespaces)},
        )


def caller_for(namespace: str | None, session_id: str, access: Access,
               what: str) -> CallerContext:
    """The authenticated MCP caller acting in `namespace` (default: its
    first), holding the grant and role that `access` needs for `what`."""
    token = get_access_token()
    if token is None:  # the transport rejects unauthenticated calls first
        raise ToolError("not authenticated")
    claims = token.claims or {}
    # The request rate is taken per HTTP request to /mcp (mcp_guard), so
    # initialize and every other JSON-RPC message count, a tool call once.
    try:
        return caller_context(token.client_id, (token.scopes or [""])[0],
                              list(claims.get("namespaces", [])), namespace, session_id,
                              read_only=list(claims.get("read_namespaces", [])),
                              access=access, what=what)
    except (NamespaceRefused, BadSession) as exc:
        raise ToolError(str(exc)) from None


class NamespaceRefused(Exception):
    """The principal may not act in the namespace it asked for."""


class RoleRefused(NamespaceRefused):
    """The principal's role may not perform the operation."""


class BadSession(Exception):
    """The client-chosen session id cannot travel as an identity."""


# A session id goes into gRPC metadata and identifies an agent on the board:
# printable ASCII without spaces.
SESSION_RE = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")


def scoped_session(principal: str, session_id: str) -> str:
    """The session the services see: the client's id under its principal's
    name, so one principal's X-Engram-Session can never name another's
    session (its episode, its reads, its board agent). A principal name has
    no '/' and no ':', so neither form can equal another principal's."""
    return f"{principal}/{session_id}" if session_id else f"principal:{principal}"


def caller_context(principal: str, role: str, allowed: list[str], namespace: str | None,
                   session_id: str = "", *, read_only: list[str] | None = None,
                   access: Access = Access.WRITE, what: str = "this call") -> CallerContext:
    """The caller context for an authenticated principal (MCP and REST).
    `allowed` are read-write grants, `read_only` read grants; `access` (from
    the tool registry) says which grant and role the operation needs."""
    read_only = read_only or []
    if session_id and not SESSION_RE.fullmatch(session_id):
        raise BadSession("X-Engram-Session must be 1-128 characters of A-Z a-z 0-9 . _ : @ / "
                         "+ = -")
    chosen = namespace if namespace else (allowed[0] if allowed else
                                          (read_only[0] if read_only else ""))
    if not chosen or not NAMESPACE_RE.match(chosen):
        raise NamespaceRefused("namespace must be 1-63 chars of a-z, 0-9, '_', '.', '-'")
    if chosen not in allowed and chosen not in read_only:
        grants = [*allowed, *(f"{n} (read)" for n in read_only)]
        raise NamespaceRefused(
            f"principal {principal!r} may not use namespace {chosen!r}; "
            f"allowed: {', '.join(grants) or 'none'}"
        )
    if access is not Access.READ and chosen not in allowed:
        raise NamespaceRefused(f"principal {principal!r} has read-only access to namespace "
                               f"{chosen!r}; this call writes")
    if (role or "agent") not in access.roles and access is Access.ERASE:
        raise RoleRefused(f"{what} erases for good and needs the erase grant (the reviewer "
                          f"or operator role); you are {role or 'agent'}")
    if (role or "agent") not in access.roles:
        raise RoleRefused(f"{what} needs the {access.value} role; you are "
                          f"{role or 'agent'}")
    return CallerContext(
        principal=principal, namespace=chosen, client_id=principal,
        session_id=scoped_session(principal, session_id),
        request_id=uuid.uuid4().hex[:16], role=role, read_only=chosen not in allowed,
    )
