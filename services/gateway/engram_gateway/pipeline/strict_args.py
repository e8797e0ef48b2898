"""Unknown arguments are refused, never dropped: a misspelt `tgs` must not
store an untagged memory and report success. One rule for every MCP tool and
every REST body: the argument model forbids extra fields (so the advertised
schema says additionalProperties: false), and a before-validator names the
unknown fields and lists the accepted ones."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

from ..tools.argtypes import ArgsRule, with_rules

# Names are echoed back; a made-up one may be long or many.
_ECHO_NAMES = 5
_ECHO_CHARS = 64


def accepted_names(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def refuse_unknown(model: type[BaseModel], what: str, data: Any) -> Any:
    """Raise a validation error naming the fields of `data` that `model` does
    not declare, with the ones it accepts; return `data` unchanged otherwise."""
    if not isinstance(data, dict):
        return data
    accepted = accepted_names(model)
    unknown = [str(k) for k in data if k not in accepted]
    if unknown:
        raise PydanticCustomError("unknown_argument", "{message}",
                                  {"message": unknown_message(unknown, accepted, what)})
    return data


def unknown_message(unknown: list[str], accepted: list[str], what: str) -> str:
    shown = ", ".join(repr(k[:_ECHO_CHARS]) for k in unknown[:_ECHO_NAMES])
    if len(unknown) > _ECHO_NAMES:
        shown += f" and {len(unknown) - _ECHO_NAMES} more"
    noun = "argument" if len(unknown) == 1 else "arguments"
    return (f"unknown {noun} {shown} (misspelt?); {what} accepts: "
            f"{', '.join(accepted) or 'no arguments'}")


class StrictBody(BaseModel):
    """Base of every REST request body: unknown fields are a 422."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_fields_only(cls, data: Any) -> Any:
        return refuse_unknown(cls, "this body", data)


async def known_query_only(request: Request) -> None:
    """REST route dependency: a query parameter the route does not declare
    (`?tag=` for `?tags=`) is a 422, not an unfiltered answer. The accepted
    names are the route's published OpenAPI parameters."""
    route = request.scope.get("route")
    path = request.app.openapi()["paths"].get(getattr(route, "path_format", ""), {})
    accepted = [p["name"] for p in path.get(request.method.lower(), {}).get("parameters", [])
                if p["in"] == "query"]
    unknown = [k for k in request.query_params if k not in accepted]
    if unknown:
        raise RequestValidationError([{
            "type": "unknown_argument", "loc": ("query", unknown[0]), "input": None,
            "msg": unknown_message(unknown, accepted, "this route's query")}])


def _strict_arguments(model: type[ArgModelBase], tool: str) -> type[ArgModelBase]:
    def known_only(cls: type[ArgModelBase], data: Any) -> Any:
        return refuse_unknown(cls, tool, data)

    namespace = {
        "__module__": model.__module__,
        "model_config": ConfigDict(extra="forbid", hide_input_in_errors=True),
        "known_only": model_validator(mode="before")(known_only),
    }
    return type(model.__name__, (model,), namespace)


def forbid_unknown_arguments(mcp: MCPServer,
                             rules: Mapping[str, Sequence[ArgsRule]] | None = None) -> None:
    """Make every registered tool refuse arguments it does not declare, and
    hold its rules across arguments (`rules`, by tool name).

    The SDK validates a call's arguments with the tool's argument model before
    the tool runs, and advertises that model's JSON schema as inputSchema; both
    are swapped here for a strict subclass, so the refusal happens before
    anything is read or written and the schema says so."""
    for tool in mcp._tool_manager.list_tools():  # the SDK has no public hook for this
        # Checked, not published: MCP clients refuse or silently drop a tool
        # whose input schema has a root-level allOf/anyOf/oneOf or if/then
        # (the Anthropic API refuses them); the argument descriptions say it.
        strict = with_rules(_strict_arguments(tool.fn_metadata.arg_model, tool.name),
                            (rules or {}).get(tool.name, ()), publish=False)
        tool.fn_metadata.arg_model = strict
        tool.parameters = strict.model_json_schema(by_alias=True)
