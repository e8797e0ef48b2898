"""Every /v1 route, generated from the tool registry: one per operation that
names a route in `rest=` ("METHOD /v1/path"); no route is written by hand.
Its arguments are the tool's own signature (the annotations and Field
constraints the MCP tool validates with): path parameters from the path
template, the rest as query parameters for GET or a JSON body otherwise,
unknown names refused; the action argument is fixed by the route. The
registry's `rest_args`, `rest_required`, `rest_names`, `rest_slashes` and
`rest_hook` declare the odd shapes. The caller is admitted as for the MCP
tool (grant, role, read-only) and the route runs the same `Op`, so the
OpenAPI document and the validation are one definition."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, create_model

from ..clients import Backends
from ..pipeline.execute import Call
from ..pipeline.strict_args import StrictBody, known_query_only
from ..registry import operations
from ..tools.argtypes import with_rules
from ..tools.spec import Op, ToolSpec
from . import rest_hooks
from .rest import grant, run_op

_PATH_PARAM = re.compile(r"{(\w+)}")
# Set by the header (X-Engram-Namespace), not by an argument.
_HEADER_ARGS = ("namespace",)


@dataclass(frozen=True)
class Route:
    """One route: the operation it runs and where."""

    spec: ToolSpec
    action: str
    op: Op
    method: str
    path: str

    def rest_name(self, arg: str) -> str:
        """The name the route gives a tool argument."""
        return self.op.rest_names.get(arg, arg)

    def tool_name(self, name: str) -> str:
        """The tool argument a route's parameter or field stands for."""
        return next((a for a, n in self.op.rest_names.items() if n == name), name)

    @property
    def path_args(self) -> list[str]:
        """The path parameters, as the route names them."""
        return _PATH_PARAM.findall(self.path)

    @property
    def served_path(self) -> str:
        """The path as FastAPI reads it: a parameter that may hold '/' takes the rest."""
        return _PATH_PARAM.sub(lambda m: f"{{{m[1]}:path}}" if self.tool_name(m[1])
                               in self.op.rest_slashes else m[0], self.path)

    @property
    def arg_names(self) -> list[str]:
        """The tool's arguments the route takes, besides its path parameters."""
        skip = {*_HEADER_ARGS, self.spec.action_arg, *map(self.tool_name, self.path_args)}
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


def generated_routes() -> list[Route]:
    """Every route the registry declares, the ones without path parameters
    first (so /v1/memories/search is not read as an entry id)."""
    routes = []
    for spec, action, o in operations():
        if not o.rest:
            continue
        method, path = o.rest.split(" ", 1)
        route = Route(spec, action, o, method, path)
        stray = [n for n in map(route.tool_name, route.path_args)
                 if n not in spec.signature.parameters]
        if stray:  # a registry mistake: fail at start-up, not on the first request
            raise ValueError(f"{o.rest}: {stray} in the path are not arguments of {spec.name}")
        if o.erase_when:  # REST admits before the body is read: the flag could not raise the grant
            raise ValueError(f"{o.rest}: {spec.label(action)} raises its grant with "
                             f"{o.erase_when!r}, which REST cannot see at admission")
        routes.append(route)
    return sorted(routes, key=lambda r: bool(r.path_args))


def arguments_model(route: Route) -> type[BaseModel] | None:
    """The route's query or body model: the tool's parameters as declared
    (under the route's names), plus its hook's fields, unknown fields
    refused; None for a GET that takes nothing but its path (a body that
    takes nothing is still checked: `{}` or none at all)."""
    params = route.spec.signature.parameters
    fields: dict[str, Any] = {
        route.rest_name(n): (params[n].annotation, ... if params[n].default is
                             inspect.Parameter.empty or n in route.op.rest_required
                             else params[n].default)
        for n in route.arg_names} | rest_hooks.hook_fields(route.op.rest_hook)
    if not fields and route.in_query:
        return None
    model = create_model(route.model_name, __base__=StrictBody, __module__=__name__,
                         __doc__=f"The arguments of {route.spec.label(route.action)}.",
                         **fields)
    return with_rules(model, route.spec.rules)


def _endpoint(backends: Backends, route: Route) -> Any:
    model = arguments_model(route)
    path_args = route.path_args
    hook = route.op.rest_hook
    extra = rest_hooks.hook_fields(hook)

    async def endpoint(**kwargs: Any) -> Any:
        given: BaseModel | None = kwargs.get("arguments")
        fields = given.model_dump() if given else {}
        args = {route.tool_name(n): kwargs[n] for n in path_args} | {
            route.tool_name(k): v for k, v in fields.items() if k not in extra}
        request, call = kwargs["request"], kwargs["call"]
        with call.record.failing():  # the hook's failure is the call's too
            rest_hooks.before(hook, call.caller, request, kwargs["response"])
        reply = await run_op(backends, call, args,
                             extras={"principals": request.app.state.principals})
        rest_hooks.after(hook, call.caller, request, fields)
        return reply

    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        _parameters(route, model), return_annotation=Any)
    endpoint.__name__ = endpoint.__qualname__ = "_".join(
        filter(None, (route.spec.name, route.action)))
    return endpoint


def _parameters(route: Route, model: type[BaseModel] | None) -> list[inspect.Parameter]:
    """The endpoint's signature: request, response, the admitted call, the
    path parameters with their tool arguments' types, then the arguments."""
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("request", kw, annotation=Request),
              inspect.Parameter("response", kw, annotation=Response),
              inspect.Parameter("call", kw, annotation=Annotated[
                  Call, Depends(grant(route.spec.name, route.action))])]
    sig = route.spec.signature.parameters
    params += [inspect.Parameter(n, kw, annotation=sig[route.tool_name(n)].annotation)
               for n in route.path_args]
    if model is not None:
        params.append(_arguments_parameter(route, model))
    return params


def _arguments_parameter(route: Route, model: type[BaseModel]) -> inspect.Parameter:
    """The query model of a GET; else the JSON body, optional when nothing in
    it is required."""
    kw = inspect.Parameter.KEYWORD_ONLY
    if route.in_query:
        return inspect.Parameter("arguments", kw, annotation=Annotated[model, Query()])
    if any(f.is_required() for f in model.model_fields.values()):
        return inspect.Parameter("arguments", kw, annotation=model)
    return inspect.Parameter("arguments", kw, annotation=model | None, default=None)


def build_rest_router(backends: Backends) -> APIRouter:
    """Every /v1 route of the gateway, one per registry `rest=`."""
    router = APIRouter(dependencies=[Depends(known_query_only)])
    for route in generated_routes():
        summary = route.spec.description.split("\n\n")[0].replace("\n", " ")
        router.add_api_route(route.served_path, _endpoint(backends, route),
                             methods=[route.method], tags=[route.spec.name],
                             summary=route.spec.label(route.action), description=summary)
    return router


def _arguments_doc(route: Route) -> str:
    """How a route takes the tool's arguments: path, then query or body
    (required ones marked with *), under the route's names."""
    params = route.spec.signature.parameters
    names = [route.rest_name(n) + ("*" if params[n].default is inspect.Parameter.empty
                                   or n in route.op.rest_required else "")
             for n in route.arg_names]
    names += list(rest_hooks.hook_fields(route.op.rest_hook))
    where = "query" if route.in_query else "body"
    parts = [f"path: {', '.join(route.path_args)}"] if route.path_args else []
    return "; ".join(parts + ([f"{where}: {', '.join(names)}"] if names else []))


def markdown() -> str:
    """docs/rest-routes.md: every REST route of the registry, with its operation."""
    routes = {(r.method, r.path): r for r in generated_routes()}
    lines = [
        "# REST routes", "",
        "Generated from the gateway's tool registry by "
        "`python -m engram_gateway.doors.rest_routes > docs/rest-routes.md`; do not edit by "
        "hand. See [rest.md](rest.md) for authentication, headers and errors, "
        "[tools.md](tools.md) for grants and retry rules.", "",
        "Every route takes exactly its tool's arguments, with the tool's constraints "
        "(`*`: required); the OpenAPI document (`GET /v1/openapi.json`) has each one's "
        "schema.", "",
        "| route | tool | grant | arguments |", "|---|---|---|---|",
    ]
    for spec, action, o in operations():
        if not o.rest:
            continue
        method, path = o.rest.split(" ", 1)
        doc = _arguments_doc(routes[(method, path)])
        lines.append(f"| `{o.rest}` | `{spec.label(action)}` | {o.access.value} | {doc} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")  # noqa: T201
