"""The board's limits are one declaration (engram_kit.board_limits): the
coordination service's settings default to them, and the bounds the
gateway puts on the same arguments, in the MCP input schema and in the
REST routes' OpenAPI document, are the service's own. A limit changed on
one side only fails here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from engram_coordination.presence import PARK_LIMITS
from engram_coordination.settings import CoordinationSettings
from engram_gateway.app import build_app, build_mcp
from engram_gateway.clients import Backends
from engram_gateway.settings import GatewaySettings
from engram_kit.principals import PrincipalStore

# The service's settings as it starts without overrides (the rest of its
# settings, a database and NATS, are not needed to read them).
SERVICE = {n: f.default for n, f in CoordinationSettings.model_fields.items()}


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> GatewaySettings:
    tokens = tmp_path_factory.mktemp("limits") / "principals.json"
    return GatewaySettings(internal_token=SecretStr("x"), tokens_file=str(tokens))


@pytest.fixture(scope="module")
def mcp_args(settings: GatewaySettings) -> dict[str, dict[str, Any]]:
    mcp = build_mcp(settings, PrincipalStore(Path(settings.tokens_file)), Backends(settings))
    return {t.name: t.parameters["properties"] for t in mcp._tool_manager.list_tools()}


@pytest.fixture(scope="module")
def openapi(settings: GatewaySettings) -> dict[str, Any]:
    return build_app(settings).openapi()


def _bound(schema: dict[str, Any], key: str) -> Any:
    """`key` (maximum, maxLength, maxItems) of an argument's schema, through
    an Optional's anyOf."""
    if key in schema:
        return schema[key]
    found = [s[key] for s in schema.get("anyOf", ()) if key in s]
    assert len(found) == 1, schema
    return found[0]


# (tool, argument, schema keyword, the service's setting)
MCP_BOUNDS = [
    ("board_agents", "expect_seconds", "maximum", SERVICE["park_max_s"]),
    ("board_agents", "park_expires_seconds", "maximum", SERVICE["park_max_s"]),
    ("board_agents", "limit", "maximum", SERVICE["list_max"]),
    ("board_agents", "project", "maxLength", SERVICE["field_max_chars"]),
    ("board_agents", "status", "maxLength", SERVICE["field_max_chars"]),
    ("board_agents", "children", "maxItems", SERVICE["children_max"]),
    ("board_agents", "park_needs", "maxLength", PARK_LIMITS["needs"]),
    ("board_agents", "park_clear_by", "maxLength", PARK_LIMITS["clear_by"]),
    ("board_agents", "park_resume", "maxLength", PARK_LIMITS["resume"]),
    ("board_lease", "ttl_seconds", "maximum", SERVICE["lease_ttl_max_s"]),
    ("board_message", "limit", "maximum", SERVICE["receive_page_max"]),
    ("board_message", "text", "maxLength", SERVICE["message_max_bytes"]),
    ("board_message", "ids", "maxItems", SERVICE["ack_max_ids"]),
]


@pytest.mark.parametrize(("tool", "arg", "key", "limit"), MCP_BOUNDS)
def test_mcp_bounds_are_the_services(mcp_args: dict, tool: str, arg: str, key: str,
                                     limit: int):
    assert _bound(mcp_args[tool][arg], key) == limit


def _body(openapi: dict[str, Any], path: str) -> dict[str, Any]:
    schema = openapi["paths"][path]["post"]["requestBody"]["content"]["application/json"][
        "schema"]
    # A body whose fields are all optional may be left out: anyOf [model, null].
    ref = schema.get("$ref") or next(s["$ref"] for s in schema["anyOf"] if "$ref" in s)
    return openapi["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]


def _query(openapi: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    params = openapi["paths"][path]["get"]["parameters"]
    return next(p["schema"] for p in params if p["name"] == name)


def test_rest_bounds_are_the_services(openapi: dict[str, Any]):
    agents = _body(openapi, "/v1/board/agents")
    assert _bound(agents["expect_seconds"], "maximum") == SERVICE["park_max_s"]
    assert _bound(_body(openapi, "/v1/board/agents/park")["expires_in_seconds"],
                  "maximum") == SERVICE["park_max_s"]
    assert _bound(_body(openapi, "/v1/board/leases/{name}/claim")["ttl_seconds"],
                  "maximum") == SERVICE["lease_ttl_max_s"]
    assert _bound(_query(openapi, "/v1/board/agents", "limit"), "maximum") == SERVICE["list_max"]
    assert _bound(_query(openapi, "/v1/board/messages", "limit"),
                  "maximum") == SERVICE["receive_page_max"]
