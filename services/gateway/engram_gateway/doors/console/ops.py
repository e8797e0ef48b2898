"""Console pages run the tool registry's operations through the pipeline,
as the MCP tools and REST routes do: the tool's own argument validation,
admission (rate limit, the grant and role the registry names), the same
backend call and reply shape, the same typed failures. Nothing here knows a
domain rule; a refusal comes back as a ConsoleError with the op's message."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError, create_model

from engram_kit.errors import InvalidArgument

from ...clients import Backends
from ...pipeline import execute as pipeline
from ...pipeline.admit import Identity
from ...pipeline.audit import Door
from ...pipeline.failures import classify
from ...pipeline.strict_args import StrictBody
from ...registry import BY_NAME
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


def validate(tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's arguments as its model reads them; a refusal is an
    InvalidArgument (the pipeline records it, the page shows it as a 400)."""
    try:
        return _arguments(tool).model_validate(args).model_dump()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'input'}: {e['msg']}"
                             for e in exc.errors()[:5])
        raise InvalidArgument(problems) from None


async def run(backends: Backends, viewer: Viewer, namespace: str, tool: str,
              args: dict[str, Any] | None = None, action: str = "",
              extras: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run `tool` (`action`) as the viewer in `namespace`; `extras` are what
    the op needs beyond the backends (the principals file, for `tokens`)."""
    spec = BY_NAME[tool]
    given = dict(args or {}) | ({spec.action_arg: action} if spec.action_arg else {})
    try:
        return await pipeline.run(Door.CONSOLE, backends, spec, Identity.of(viewer.principal),
                                  namespace, f"console:{viewer.name}", given, extras=extras,
                                  check=lambda a: validate(tool, a))
    except Exception as exc:
        failure = classify(exc)
        if failure is None:
            raise
        if failure.retry_after_s is not None:
            raise ConsoleError(failure.status, failure.kind, f"{failure.detail} (retry after "
                               f"{failure.retry_after_s} s)") from None
        if not failure.typed:  # no message to show
            raise ConsoleError(500, "internal", "internal error in a backing service") \
                from None
        raise ConsoleError(failure.status, failure.kind, failure.detail) from None
