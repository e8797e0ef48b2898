"""The REST door's share of every /v1 route: the bearer token as for /mcp
read as the pipeline's Identity, admission (rate limit, the grant and role
the registry names) as a route dependency, execution of the registry
operation, and the pipeline's typed failures as HTTP problems
{error, detail}."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, NoReturn

from fastapi import Header, HTTPException, Request
from fastapi.responses import JSONResponse

from engram_kit.context import CallerContext
from engram_kit.principals import PrincipalStore

from ..clients import Backends
from ..pipeline.admit import Identity, admit
from ..pipeline.execute import execute
from ..pipeline.failures import classify
from ..registry import operation, tool

# The headers' rules (admit.caller_context checks them) in the OpenAPI document.
NamespaceHeader = Annotated[str | None, Header(
    max_length=63, pattern=r"^[a-z0-9][a-z0-9_.-]*$",
    description="The namespace to act in; default: the principal's first.")]
SessionHeader = Annotated[str | None, Header(
    max_length=128, pattern=r"^[A-Za-z0-9._:@/+=-]+$",
    description="The client's session (shared with its MCP calls).")]


def grant(tool_name: str, action: str = "") -> Callable[..., Awaitable[CallerContext]]:
    """The caller dependency of a route that runs `tool_name` (`action`):
    the bearer token, then admission for the operation. A route declares
    its caller as Annotated[CallerContext, Depends(grant(...))]."""
    needs = operation(tool_name, action).access
    what = tool(tool_name).label(action)

    async def rest_caller(request: Request,
                          x_engram_namespace: NamespaceHeader = None,
                          x_engram_session: SessionHeader = None) -> CallerContext:
        who = await _identity(request)
        try:
            return admit(who, x_engram_namespace, x_engram_session or "", needs, what)
        except Exception as exc:
            _refuse(exc)

    return rest_caller


def _refuse(exc: Exception) -> NoReturn:
    failure = classify(exc)
    if failure is None:
        raise exc
    raise HTTPException(failure.status, {"error": failure.kind, "detail": failure.detail}) \
        from None


async def _identity(request: Request) -> Identity:
    """The principal of the request's bearer token."""
    store: PrincipalStore = request.app.state.principals
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    principal = (await asyncio.to_thread(store.verify, token)
                 if scheme.lower() == "bearer" and token else None)
    if principal is None:
        raise HTTPException(401, {"error": "unauthenticated",
                                  "detail": "a valid bearer token is required"},
                            headers={"WWW-Authenticate": "Bearer"})
    return Identity.of(principal)


async def run_op(backends: Backends, caller: CallerContext, tool_name: str,
                 args: Mapping[str, Any], action: str = "",
                 extras: Mapping[str, Any] | None = None) -> Any:
    """Execute an admitted registry operation for a REST route: the tool's
    defaults fill what the route does not take, so MCP and REST build the
    same request; a failure becomes its HTTP problem."""
    spec = tool(tool_name)
    full = spec.defaults() | dict(args) | ({spec.action_arg: action} if spec.action_arg else {})
    try:
        return await execute(backends, spec.op_for(full), caller, full, extras=extras)
    except Exception as exc:
        failure = classify(exc)
        if failure is None:
            raise
        headers = ({"Retry-After": str(failure.retry_after_s)}
                   if failure.retry_after_s is not None else None)
        body: dict[str, Any] = {"error": failure.kind, "detail": failure.detail}
        if failure.retry_after_s is not None:  # temporary: say when to come back
            body["retry_after_s"] = failure.retry_after_s
        return JSONResponse(body, status_code=failure.status, headers=headers)
