"""What the REST routes share: the authenticated caller (bearer token as for
/mcp, rate limit, the grant and role the tool registry names), the registry
operation a route runs, and one mapping of domain errors to HTTP status
codes with a JSON body {error, detail}."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Header, HTTPException, Request
from fastapi.responses import JSONResponse
from mcp.server.mcpserver.exceptions import ToolError

from engram_kit.context import CallerContext
from engram_kit.errors import DomainError, Unavailable
from engram_kit.principals import Principal, PrincipalStore

from .. import limits
from ..clients import Backends, Calls
from ..pipeline.admit import BadSession, NamespaceRefused, caller_context
from ..registry import operation, tool
from ..tools.spec import Effect, Invocation

HTTP_STATUS = {"invalid_argument": 400, "unauthenticated": 401, "permission_denied": 403,
               "not_found": 404, "conflict": 409, "resource_exhausted": 429,
               "unavailable": 503, "deadline_exceeded": 504, "unimplemented": 501}


# The headers' rules (auth.caller_context checks them) in the OpenAPI document.
NamespaceHeader = Annotated[str | None, Header(
    max_length=63, pattern=r"^[a-z0-9][a-z0-9_.-]*$",
    description="The namespace to act in; default: the principal's first.")]
SessionHeader = Annotated[str | None, Header(
    max_length=128, pattern=r"^[A-Za-z0-9._:@/+=-]+$",
    description="The client's session (shared with its MCP calls).")]


def grant(tool_name: str, action: str = "") -> Callable[..., Awaitable[CallerContext]]:
    """The caller dependency of a route that runs `tool_name` (`action`): the
    bearer token as for /mcp, the rate limit, and the grant and role the
    registry says the operation needs. A route declares its caller as
    Annotated[CallerContext, Depends(grant(...))]."""
    needs = operation(tool_name, action).access
    what = tool(tool_name).label(action)

    async def rest_caller(request: Request,
                          x_engram_namespace: NamespaceHeader = None,
                          x_engram_session: SessionHeader = None) -> CallerContext:
        principal = await _principal(request)
        try:
            return caller_context(principal.name, principal.role, list(principal.namespaces),
                                  x_engram_namespace, x_engram_session or "",
                                  read_only=list(principal.read_namespaces),
                                  access=needs, what=what)
        except NamespaceRefused as exc:
            raise HTTPException(403, {"error": "permission_denied", "detail": str(exc)}) \
                from None
        except BadSession as exc:
            raise HTTPException(400, {"error": "invalid_argument", "detail": str(exc)}) \
                from None

    return rest_caller


async def _principal(request: Request) -> Principal:
    """The principal of the request's bearer token, under its rate limit."""
    store: PrincipalStore = request.app.state.principals
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    principal = (await asyncio.to_thread(store.verify, token)
                 if scheme.lower() == "bearer" and token else None)
    if principal is None:
        raise HTTPException(401, {"error": "unauthenticated",
                                  "detail": "a valid bearer token is required"},
                            headers={"WWW-Authenticate": "Bearer"})
    try:
        limits.LIMITER.take(principal.name)
    except limits.RateLimited as exc:
        raise HTTPException(429, {"error": "resource_exhausted", "detail": str(exc)}) from None
    return principal


async def run_op(backends: Backends, caller: CallerContext, tool_name: str,
                 args: dict[str, Any], action: str = "",
                 shape: Callable[..., dict[str, Any]] | None = None,
                 extras: dict[str, Any] | None = None) -> Any:
    """Run a registry operation for a REST route: the tool's defaults fill
    what the route does not take, so MCP and REST build the same request."""
    spec = tool(tool_name)
    full = spec.defaults() | args | ({spec.action_arg: action} if spec.action_arg else {})
    o = spec.op_for(full)
    calls = Calls(backends, resend=o.effect is Effect.NONE)
    return await answer(o.invoke(Invocation(calls, caller, full, extras=extras or {}), shape),
                        lambda r: r)


async def answer(reply: Awaitable[Any], shape: Callable[[Any], Any]) -> Any:
    """Await a backend call and shape it; a domain error becomes its HTTP status."""
    try:
        return shape(await reply)
    except Unavailable as exc:  # temporary: say when to come back
        return JSONResponse({"error": exc.kind, "detail": exc.message,
                             "retry_after_s": exc.retry_after_s},
                            status_code=503, headers={"Retry-After": str(exc.retry_after_s)})
    except DomainError as exc:
        return JSONResponse({"error": exc.kind, "detail": exc.message},
                            status_code=HTTP_STATUS.get(exc.kind, 500))
    except ToolError as exc:  # gateway-side validation (e.g. a malformed date)
        return JSONResponse({"error": "invalid_argument", "detail": str(exc)}, status_code=400)
