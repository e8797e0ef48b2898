"""The REST door's share of every /v1 route: the bearer token as for /mcp
read as the pipeline's Identity, admission (rate limit, the grant and role
the registry names) as a route dependency, execution of the registry
operation, and the pipeline's typed failures as HTTP problems
{error, detail}."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, NoReturn

from fastapi import Header, HTTPException, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from engram_kit.errors import InvalidArgument
from engram_kit.principals import PrincipalStore

from ..clients import Backends
from ..pipeline.admit import Identity
from ..pipeline.audit import Door
from ..pipeline.execute import Call
from ..pipeline.failures import classify
from ..registry import tool

# The headers' rules (admit.caller_context checks them) in the OpenAPI document.
NamespaceHeader = Annotated[str | None, Header(
    max_length=63, pattern=r"^[a-z0-9][a-z0-9_.-]*$",
    description="The namespace to act in; default: the principal's first.")]
SessionHeader = Annotated[str | None, Header(
    max_length=128, pattern=r"^[A-Za-z0-9._:@/+=-]+$",
    description="The client's session (shared with its MCP calls).")]


def grant(tool_name: str, action: str = "") -> Callable[..., Awaitable[Call]]:
    """The call dependency of a route that runs `tool_name` (`action`): the
    bearer token, then admission for the operation (a refusal is recorded
    and answered before FastAPI reads the body, as it always was). A route
    declares it as Annotated[Call, Depends(grant(...))] and executes it."""
    spec = tool(tool_name)

    async def rest_call(request: Request,
                        x_engram_namespace: NamespaceHeader = None,
                        x_engram_session: SessionHeader = None) -> Call:
        who = await _identity(request)
        call = Call(Door.REST, spec, who, x_engram_namespace, action)
        try:
            call.admit(x_engram_session or "")
        except Exception as exc:
            _refuse(exc)
        # Admitted: if FastAPI then refuses the body, validation_failed records it.
        request.state.call = call
        return call

    return rest_call


def _refuse(exc: Exception) -> NoReturn:
    failure = classify(exc)
    if failure is None:
        raise exc
    raise HTTPException(failure.status, {"error": failure.kind, "detail": failure.detail}) \
        from None


async def validation_failed(request: Request, exc: Exception) -> Response:
    """FastAPI's 422 as it was, and, for a route whose call was admitted,
    its access record (invalid_argument)."""
    call: Call | None = getattr(request.state, "call", None)
    if call is not None:
        call.record.finish(InvalidArgument("the request's arguments were refused"))
    if not isinstance(exc, RequestValidationError):  # registered for that type only
        raise exc
    return await request_validation_exception_handler(request, exc)


async def _identity(request: Request) -> Identity:
    """The principal of the request's bearer token."""
    store: PrincipalStore = request.app.state.principals
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    principal = (await store.verify_async(token)
                 if scheme.lower() == "bearer" and token else None)
    if principal is None:
        raise HTTPException(401, {"error": "unauthenticated",
                                  "detail": "a valid bearer token is required"},
                            headers={"WWW-Authenticate": "Bearer"})
    return Identity.of(principal)


async def run_op(backends: Backends, call: Call, args: Mapping[str, Any],
                 extras: Mapping[str, Any] | None = None) -> Any:
    """Execute an admitted registry operation for a REST route: the tool's
    defaults fill what the route does not take, so MCP and REST build the
    same request; a failure becomes its HTTP problem."""
    spec, action = call.spec, call.action
    full = spec.defaults() | dict(args) | ({spec.action_arg: action} if spec.action_arg else {})
    try:
        return await call.execute(backends, full, op=spec.op_for(full), extras=extras)
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
