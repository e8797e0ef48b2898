"""The gateway's tool registry against what the gateway serves, without a
stack: every registered MCP tool and REST route comes from one registry
entry, the entries are consistent, and docs/tools.md is generated from them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from engram_gateway.app import build_app, build_mcp
from engram_gateway.clients import Backends
from engram_gateway.doors.rest_routes import arguments_model, generated_routes
from engram_gateway.doors.rest_routes import markdown as rest_markdown
from engram_gateway.registry import TOOLS, markdown, operations
from engram_gateway.settings import GatewaySettings
from engram_gateway.tools.spec import Access, Effect, Retry, Tier
from engram_kit.principals import PrincipalStore

from ..paths import REPO_ROOT


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> GatewaySettings:
    tokens = tmp_path_factory.mktemp("registry") / "principals.json"
    return GatewaySettings(internal_token=SecretStr("x"), tokens_file=str(tokens))


@pytest.fixture(scope="module")
def served(settings: GatewaySettings) -> dict:
    mcp = build_mcp(settings, PrincipalStore(Path(settings.tokens_file)), Backends(settings))
    return {t.name: t for t in mcp._tool_manager.list_tools()}


def test_every_served_tool_is_one_registry_entry(served: dict):
    assert sorted(served) == sorted(t.name for t in TOOLS)
    assert len({t.name for t in TOOLS}) == len(TOOLS)


def test_every_tool_has_its_registry_annotations(served: dict):
    for spec in TOOLS:
        got = served[spec.name].annotations
        assert got == spec.annotations, spec.name
        assert None not in (got.read_only_hint, got.idempotent_hint, got.open_world_hint)
        assert got.read_only_hint or got.destructive_hint is not None, spec.name


def test_access_and_effect_agree():
    """A read changes nothing stored (toolset only changes what its caller
    sees); everything else needs a write grant and says what it does, except
    the operator-only reads (the audit, the token list), and an operation
    that is not plainly safe to repeat says when it is."""
    for spec, action, op in operations():
        where = f"{spec.name} {action}"
        if op.access is Access.READ:
            assert op.effect in (Effect.NONE, Effect.SESSION), where
        elif op.access is not Access.OPERATOR or op.effect is not Effect.NONE:
            assert op.effect in (Effect.ADDITIVE, Effect.DESTRUCTIVE), where
        if op.effect is not Effect.NONE:
            assert op.note, f"{where}: say when a repeat is safe"
        if op.effect is Effect.NONE:
            assert op.retry is Retry.SAFE, where
        assert op.run is not None or (op.rpc is not None and op.build is not None), where


def test_examples_are_valid_arguments(served: dict):
    """The generated grant tests call each operation with its example."""
    for spec, action, _ in operations():
        args = {**spec.example, **({spec.action_arg: action} if action else {})}
        served[spec.name].fn_metadata.arg_model.model_validate(args)


def test_action_tools_name_every_action(served: dict):
    for spec in TOOLS:
        if spec.action_arg:
            schema = served[spec.name].parameters["properties"][spec.action_arg]
            assert sorted(schema["enum"]) == sorted(spec.ops), spec.name
        else:
            assert list(spec.ops) == [""], spec.name


def test_minimal_tier_is_store_search_briefing():
    assert sorted(t.name for t in TOOLS if t.tier is Tier.MINIMAL) == [
        "briefing", "memory_search", "memory_store", "toolset"]


def test_rest_routes_are_the_registry_operations(settings: GatewaySettings):
    """Every /v1 route runs a registry operation, and the registry names
    each route it has."""
    paths = build_app(settings).openapi()["paths"]
    routes = {f"{method.upper()} {path}" for path, item in paths.items()
              if path.startswith("/v1/") for method in item}
    named = {op.rest for _, _, op in operations() if op.rest}
    assert routes == named


def test_tools_doc_is_generated_from_the_registry():
    doc = REPO_ROOT / "docs" / "tools.md"
    assert doc.read_text() == markdown(), (
        "docs/tools.md is stale: python -m engram_gateway.registry --markdown > docs/tools.md")


def test_rest_routes_doc_is_generated_from_the_registry():
    doc = REPO_ROOT / "docs" / "rest-routes.md"
    assert doc.read_text() == rest_markdown(), (
        "docs/rest-routes.md is stale: python -m engram_gateway.doors.rest_routes "
        "> docs/rest-routes.md")


def test_generated_routes_take_exactly_their_tools_arguments():
    """A generated body or query model is the tool's signature: the same
    fields and constraints, unknown ones refused, the action fixed."""
    models = {(r.spec.name, r.action): arguments_model(r) for r in generated_routes()}
    fact_set = models[("fact_set", "")]
    assert fact_set is not None
    assert fact_set.model_json_schema()["additionalProperties"] is False
    for bad in ({"confidence": 2}, {"kind": "GUESS"}, {"confidance": 1}):
        with pytest.raises(ValueError):
            fact_set.model_validate({"entity": "e", "attribute": "a", "value": "v", **bad})
    runs = models[("dream", "runs")]
    assert runs is not None and list(runs.model_fields) == ["limit"]
    with pytest.raises(ValueError):
        runs.model_validate({"action": "rollback"})
