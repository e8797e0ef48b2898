"""REST routes generated from the tool registry: every operation that names a
route in `rest=` ("METHOD /v1/path") and has no hand-written route gets one.
Its arguments are the tool's own signature (the annotations and Field
constraints the MCP tool validates with): path parameters from the path
template, the rest as query parameters for GET or a JSON body otherwise,
unknown names refused; the action argument is fixed by the route. The caller
is authorised as for the MCP tool (grant, role, read-only) and the route runs
the same `Op`, so the OpenAPI document and the validation are one definition."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, Query, Request
from fastapi.routing import APIRoute
from pydantic import BaseModel, create_model

from engram_kit.context import CallerContext

from ..clients import Backends
from ..pipeline.strict_args import StrictBody, known_query_only
from ..registry import operations
from ..tools.argtypes import with_rules
from ..tools.spec import Op, ToolSpec
from .rest import grant, run_op
from .rest_board import build_board_router
from .rest_hygiene import build_hygiene_router
from .rest_memory import build_memory_router
from .rest_sessions import build_sessions_router

_PATH_PARAM = re.compile(r"{(\w+)}")
# Set by the header (X-Engram-Namespace), not by an argument.
_HEADER_ARGS = ("namespace",)


@dataclass(frozen=True)
class Route:
    """One generated route: the operation it runs and where."""

    spec: ToolSpec
    action: str
    op: Op
    method: str
    path: str

    @property
    def path_args(self) -> list[str]:
        return _PATH_PARAM.findall(self.path)

    @property
    def arg_names(self) -> list[str]:
        """The tool's arguments the route takes, besides its path parameters."""
        skip = {*_HEADER_ARGS, self.spec.action_arg, *self.path_args}
        names = [n for n in self.spec.signature.parameters if n not in skip]
        if self.op.rest_args is not None:
            names = [n for n in names if n in self.op.rest_args]
        return names

    @property
    def in_query(self) -> bool:
        return self.method == "GET"

    @property
    def model_name(self) -> str:
        words = [*self.spec.name.split("_"), *self.action.split("_")]
        return "".join(w.capitalize() for w in words) + ("Query" if self.in_query else "Body")


def registry_routes(covered: Iterable[tuple[str, str]] = ()) -> list[Route]:
    """The routes the registry declares that `covered` ((method, path) pairs
    of hand-written routes) does not already serve."""
    done = set(covered)
    routes = []
    for spec, action, o in operations():
        if not o.rest:
            continue
        method, path = o.rest.split(" ", 1)
        if (method, path) in done:
            continue
        route = Route(spec, action, o, method, path)
        stray = [n for n in route.path_args if n not in spec.signature.parameters]
        if stray:  # a registry mistake: fail at start-up, not on the first request
            raise ValueError(f"{o.rest}: {stray} in the path are not arguments of {spec.name}")
        routes.append(route)
    return routes


def arguments_model(route: Route) -> type[BaseModel] | None:
    """The route's query or body model: the tool's parameters as declared,
    unknown fields refused; None for a GET that takes nothing but its path
    (a body that takes nothing is still checked: `{}` or none at all)."""
    params = route.spec.signature.parameters
    fields: dict[str, Any] = {
        n: (params[n].annotation, ... if params[n].default is inspect.Parameter.empty
            or n in route.op.rest_required else params[n].default)
        for n in route.arg_names}
    if not fields and route.in_query:
        return None
    model = create_model(route.model_name, __base__=StrictBody, __module__=__name__,
                         __doc__=f"The arguments of {route.spec.label(route.action)}.",
                         **fields)
    return with_rules(model, route.spec.rules)


def _endpoint(backends: Backends, route: Route) -> Any:
    model = arguments_model(route)
    path_args = route.path_args

    async def endpoint(**kwargs: Any) -> Any:
        given: BaseModel | None = kwargs.get("arguments")
        args = {n: kwargs[n] for n in path_args} | (given.model_dump() if given else {})
        extras = {"principals": kwargs["request"].app.state.principals}
        return await run_op(backends, kwargs["caller"], route.spec.name, args, route.action,
                            extras=extras)

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("request", kw, annotation=Request),
              inspect.Parameter("caller", kw, annotation=Annotated[
                  CallerContext, Depends(grant(route.spec.name, route.action))])]
    params += [inspect.Parameter(n, kw, annotation=route.spec.signature.parameters[n].annotation)
               for n in path_args]
    if model is not None:
        params.append(_arguments_parameter(route, model))
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        params, return_annotation=Any)
    endpoint.__name__ = endpoint.__qualname__ = "_".join(
        filter(None, (route.spec.name, route.action)))
    return endpoint


def _arguments_parameter(route: Route, model: type[BaseModel]) -> inspect.Parameter:
    """The query model of a GET; else the JSON body, optional when nothing in
    it is required."""
    kw = inspect.Parameter.KEYWORD_ONLY
    if route.in_query:
        return inspect.Parameter("arguments", kw, annotation=Annotated[model, Query()])
    if any(f.is_required() for f in model.model_fields.values()):
        return inspect.Parameter("arguments", kw, annotation=model)
    return inspect.Parameter("arguments", kw, annotation=model | None, default=None)


def hand_written_routers(backends: Backends) -> list[APIRouter]:
    """The routes written by hand (their bodies predate the generator); the
    hygiene routes come before the memory routes, so that
    /v1/memories/consolidation-candidates is not read as an entry id."""
    return [build_hygiene_router(backends), build_board_router(backends),
            build_memory_router(backends), build_sessions_router(backends)]


def served(routers: Iterable[APIRouter]) -> set[tuple[str, str]]:
    """The (method, path) pairs `routers` serve."""
    return {(m, r.path_format) for router in routers for r in router.routes
            if isinstance(r, APIRoute) for m in r.methods or ()}


def generated_routes() -> list[Route]:
    """The routes the gateway generates (those with no hand-written one)."""
    # Only the hand-written routes' paths are read: no backend is called.
    return registry_routes(served(hand_written_routers(cast(Backends, None))))


def build_rest_routers(backends: Backends) -> list[APIRouter]:
    """Every REST route of the gateway: the hand-written ones, then one
    generated route per other `rest=` of the registry."""
    hand = hand_written_routers(backends)
    return [*hand, build_registry_router(backends, served(hand))]


def build_registry_router(backends: Backends,
                          covered: Iterable[tuple[str, str]] = ()) -> APIRouter:
    """One route per registry operation with a `rest=` that `covered` lacks."""
    router = APIRouter(dependencies=[Depends(known_query_only)])
    for route in registry_routes(covered):
        summary = route.spec.description.split("\n\n")[0].replace("\n", " ")
        router.add_api_route(route.path, _endpoint(backends, route), methods=[route.method],
                             tags=[route.spec.name], summary=route.spec.label(route.action),
                             description=summary)
    return router


def _arguments_doc(route: Route) -> str:
    """How a generated route takes the tool's arguments: path, then query or body
    (required ones marked with *)."""
    params = route.spec.signature.parameters
    names = [f"{n}*" if params[n].default is inspect.Parameter.empty
             or n in route.op.rest_required else n for n in route.arg_names]
    where = "query" if route.in_query else "body"
    parts = [f"path: {', '.join(route.path_args)}"] if route.path_args else []
    return "; ".join(parts + ([f"{where}: {', '.join(names)}"] if names else []))


def markdown() -> str:
    """docs/rest-routes.md: every REST route of the registry, with its operation."""
    generated = {(r.method, r.path): r for r in generated_routes()}
    lines = [
        "# REST routes", "",
        "Generated from the gateway's tool registry by "
        "`python -m engram_gateway.doors.rest_routes > docs/rest-routes.md`; do not edit by hand. "
        "See [rest.md](rest.md) for authentication, headers and errors, "
        "[tools.md](tools.md) for grants and retry rules.", "",
        "A route marked *generated* takes exactly its tool's arguments, with the tool's "
        "constraints (`*`: required); the OpenAPI document (`GET /v1/openapi.json`) has "
        "each one's schema.", "",
        "| route | tool | grant | arguments |", "|---|---|---|---|",
    ]
    for spec, action, o in operations():
        if not o.rest:
            continue
        method, path = o.rest.split(" ", 1)
        route = generated.get((method, path))
        args = ("generated" + (f"; {_arguments_doc(route)}" if _arguments_doc(route) else "")
                if route else "hand-written")
        lines.append(f"| `{o.rest}` | `{spec.label(action)}` | {o.access.value} | {args} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")  # noqa: T201
