"""Admission, the pipeline's first stage for every door: who the caller is
(an `Identity` each door reads from its own credential), the rate limit,
the grant and role the registry names for the operation, and the caller
context the services see. A refusal is a typed exception (failures.py maps
it for each door)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from engram_kit.context import NAMESPACE_RE, CallerContext
from engram_kit.principals import Principal

from .. import limits
from ..tools.spec import Access


class Refused(Exception):
    """Admission refused the call (the door says so as the failure maps it)."""


class NamespaceRefused(Refused):
    """The principal may not act in the namespace it asked for."""


class RoleRefused(NamespaceRefused):
    """The principal's role may not perform the operation."""


class BadSession(Refused):
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


def new_request_id() -> str:
    """A call's request id: in its access record, its services' logs and
    an internal error's text."""
    return uuid.uuid4().hex[:16]


def caller_context(principal: str, role: str, allowed: list[str], namespace: str | None,
                   session_id: str = "", *, read_only: list[str] | None = None,
                   access: Access = Access.WRITE, what: str = "this call",
                   request_id: str = "") -> CallerContext:
    """The caller context for an authenticated principal (MCP and REST).
    `allowed` are read-write grants, `read_only` read grants; `access` (from
    the tool registry) says which grant and role the operation needs;
    `request_id` the call's id when its access record already has one."""
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
        request_id=request_id or new_request_id(), role=role, read_only=chosen not in allowed,
    )


@dataclass(frozen=True)
class Identity:
    """An authenticated principal as a door read it: a bearer token (REST),
    the MCP access token's claims, or a console session."""

    name: str
    role: str
    namespaces: tuple[str, ...]
    read_namespaces: tuple[str, ...] = ()

    @classmethod
    def of(cls, principal: Principal) -> Identity:
        return cls(principal.name, principal.role, tuple(principal.namespaces),
                   tuple(principal.read_namespaces))


def admit(who: Identity, namespace: str | None, session_id: str, access: Access, what: str,
          *, metered: bool = True, request_id: str = "") -> CallerContext:
    """The caller context for one call of an operation needing `access`,
    after the rate limit (`metered=False`: the door already took it, as
    /mcp does once per HTTP request); raises limits.RateLimited,
    NamespaceRefused or BadSession."""
    if metered:
        limits.LIMITER.take(who.name)
    return caller_context(who.name, who.role, list(who.namespaces), namespace, session_id,
                          read_only=list(who.read_namespaces), access=access, what=what,
                          request_id=request_id)
