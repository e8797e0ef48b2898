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
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, create_model

from engram_kit.context import CallerContext

from .clients import Backends
from .registry import operations
from .rest import grant, run_op
from .strict_args import StrictBody, known_query_only
from .toolspec import Op, ToolSpec

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
        if (method, path) not in done:
            routes.append(Route(spec, action, o, method, path))
    return routes


def arguments_model(route: Route) -> type[BaseModel] | None:
    """The route's query or body model: the tool's parameters as declared,
    unknown fields refused; None for a GET that takes nothing but its path
    (a body that takes nothing is still checked: `{}` or none at all)."""
    params = route.spec.signature.parameters
    fields: dict[str, Any] = {
        n: (params[n].annotation,
            ... if params[n].default is inspect.Parameter.empty else params[n].default)
        for n in route.arg_names}
    if not fields and route.in_query:
        return None
    return create_model(route.model_name, __base__=StrictBody, __module__=__name__,
                        __doc__=f"The arguments of {route.spec.label(route.action)}.",
                        **fields)


def _endpoint(backends: Backends, route: Route) -> Any:
    model = arguments_model(route)
    path_args = route.path_args

    async def endpoint(**kwargs: Any) -> Any:
        given: BaseModel | None = kwargs.get("arguments")
        args = {n: kwargs[n] for n in path_args} | (given.model_dump() if given else {})
        return await run_op(backends, kwargs["caller"], route.spec.name, args, route.action)

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("caller", kw, annotation=Annotated[
        CallerContext, Depends(grant(route.spec.name, route.action))])]
    params += [inspect.Parameter(n, kw, annotation=route.spec.signature.parameters[n].annotation)
               for n in path_args]
    if model is not None:
        annotation = Annotated[model, Query()] if route.in_query else model
        optional = not route.in_query and not any(
            f.is_required() for f in model.model_fields.values())
        params.append(inspect.Parameter("arguments", kw, annotation=annotation | None
                                        if optional else annotation,
                                        default=None if optional else inspect.Parameter.empty))
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        params, return_annotation=Any)
    endpoint.__name__ = endpoint.__qualname__ = "_".join(
        filter(None, (route.spec.name, route.action)))
    return endpoint


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
