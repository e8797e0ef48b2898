"""Console pages run the tool registry's operations, as the MCP tools and
REST routes do: the tool's own argument validation, the grant and role the
registry names, the same backend call and reply shape. Nothing here knows a
domain rule; a refusal comes back as a ConsoleError with the op's message."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from functools import cache
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ValidationError, create_model

from engram_kit.errors import DomainError, Unavailable

from ... import limits
from ...clients import Backends, Calls
from ...pipeline.admit import BadSession, NamespaceRefused, caller_context
from ...pipeline.strict_args import StrictBody
from ...registry import BY_NAME
from ...tools.spec import Effect, Invocation
from ..rest import HTTP_STATUS
from .session import Viewer
from .web import ConsoleError


@cache
def _arguments(tool: str) -> type[BaseModel]:
    """The tool's arguments as its signature declares them (namespace aside:
    the console's namespace picker sets it)."""
    params = BY_NAME[tool].signature.parameters
    fields: dict[str, Any] = {
        n: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
        for n, p in params.items() if n != "namespace"}
    return create_model(f"Console_{tool}", __base__=StrictBody, **fields)


def has(tool: str, action: str = "") -> bool:
    """Whether this gateway's registry has the operation (pages that use an
    optional one show what exists without it)."""
    spec = BY_NAME.get(tool)
    return spec is not None and action in spec.ops


def validate(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    try:
        return _arguments(tool).model_validate(args).model_dump()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'input'}: {e['msg']}"
                             for e in exc.errors()[:5])
        raise ConsoleError(400, "invalid_argument", problems) from None


async def run(backends: Backends, viewer: Viewer, namespace: str, tool: str,
              args: dict[str, Any] | None = None, action: str = "",
              extras: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run `tool` (`action`) as the viewer in `namespace`; `extras` are what
    the op needs beyond the backends (the principals file, for `tokens`)."""
    spec = BY_NAME[tool]
    given = dict(args or {}) | ({spec.action_arg: action} if spec.action_arg else {})
    full = validate(tool, given)
    o = spec.op_for(full)
    try:
        limits.LIMITER.take(viewer.name)
        caller = caller_context(viewer.name, viewer.role, list(viewer.principal.namespaces),
                                namespace, f"console:{viewer.name}",
                                read_only=list(viewer.principal.read_namespaces),
                                access=o.access, what=spec.label(action))
    except limits.RateLimited as exc:
        raise ConsoleError(429, "resource_exhausted", str(exc)) from None
    except (NamespaceRefused, BadSession) as exc:
        raise ConsoleError(403, "permission_denied", str(exc)) from None
    calls = Calls(backends, resend=o.effect is Effect.NONE)
    try:
        return await o.invoke(Invocation(calls, caller, full, extras=extras or {}))
    except Unavailable as exc:
        raise ConsoleError(503, exc.kind, f"{exc.message} (retry after "
                           f"{exc.retry_after_s} s)") from None
    except DomainError as exc:
        if type(exc) is DomainError:  # not a typed error: no message to show
            raise ConsoleError(500, "internal", "internal error in a backing service") \
                from None
        raise ConsoleError(HTTP_STATUS.get(exc.kind, 500), exc.kind, exc.message) from None
    except ToolError as exc:
        raise ConsoleError(400, "invalid_argument", str(exc)) from None
