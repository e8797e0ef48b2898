"""What a REST route does besides its operation, as its registry entry's
`rest_hook` names (RestHook). The session routes are the hooks' calls: they
tell the session binder which client sessions are open (session_binding),
and the reply says how many the principal has open."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import Request, Response
from pydantic import Field

from engram_kit.context import CallerContext

from ..tools.spec import RestHook
from . import session_binding

OPEN_SESSIONS = "X-Engram-Open-Sessions"

# Fields a hook adds to its route's body: name -> (annotation, default).
HOOK_FIELDS: dict[RestHook, dict[str, tuple[Any, Any]]] = {
    RestHook.SESSION_CLOSE: {"end": (Annotated[bool, Field(
        description="The client ended the session (SessionEnd): tool calls without a "
        "session header no longer bind to it.")], False)},
}


def hook_fields(hook: RestHook | None) -> dict[str, tuple[Any, Any]]:
    return HOOK_FIELDS.get(hook, {}) if hook else {}


def hook_session(caller: CallerContext, request: Request, response: Response | None = None,
                 end: bool = False) -> None:
    """A hook's call: the client session it names is open (or, with `end`,
    over) for the principal's header-less MCP calls to bind to. The reply
    says how many sessions the principal has open (X-Engram-Open-Sessions):
    more than one, and header-less tool calls cannot be bound."""
    session = request.headers.get("x-engram-session", "")
    if not session:
        return
    if end:
        session_binding.BINDER.hook_ended(caller.principal, session)
        return
    count = session_binding.BINDER.hook_seen(caller.principal, session)
    if response is not None:
        response.headers[OPEN_SESSIONS] = str(count)


def before(hook: RestHook | None, caller: CallerContext, request: Request,
           response: Response) -> None:
    """The hook's part before the operation runs."""
    if hook is RestHook.SESSION_SEEN:
        hook_session(caller, request, response)


def after(hook: RestHook | None, caller: CallerContext, request: Request,
          given: Mapping[str, Any]) -> None:
    """The hook's part after the operation ran (whatever its reply)."""
    if hook is RestHook.SESSION_CLOSE:
        hook_session(caller, request, end=bool(given.get("end")))
