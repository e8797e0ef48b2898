"""fact_set's kind columns: the rule that only the owning kind sets a column
is one definition (fact_args.KIND_COLUMNS) that the REST body publishes in
its JSON schema and that both the REST body and the MCP arguments check, so
the schema accepts exactly what the check accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import SecretStr, ValidationError

from engram_gateway.app import build_mcp
from engram_gateway.clients import Backends
from engram_gateway.doors.rest_routes import arguments_model, generated_routes
from engram_gateway.settings import GatewaySettings
from engram_kit.principals import PrincipalStore

SLOT = {"entity": "billing-api", "attribute": "database", "value": "postgres"}
# (arguments, the refusal's words; "" when accepted)
CASES: list[tuple[dict[str, Any], str]] = [
    ({}, ""),
    ({"reopen_trigger": "if p95 passes 200 ms"},
     "reopen_trigger belongs to DECISION facts, not STATE"),
    ({"kind": "DECISION", "reopen_trigger": "if p95 passes 200 ms"}, ""),
    ({"kind": "EVENT", "reopen_trigger": ""}, ""),  # empty: not set
    ({"earned_by": "the outage"}, "earned_by belongs to RULE/PREFERENCE facts, not STATE"),
    ({"kind": "PREFERENCE", "earned_by": "the outage"}, ""),
    ({"kind": "RULE", "details": {"earned_by": "the outage", "scope": "all"}}, ""),
    ({"kind": "RULE", "details": {"subject": "x"}},
     "subject belongs to EVENT/REFERENCE facts, not RULE"),
    ({"details": {"status_detail": "degraded", "expected_lifetime_seconds": 60}}, ""),
    ({"kind": "DECISION", "details": {"expected_lifetime_seconds": 60}},
     "expected_lifetime_seconds belongs to STATE facts, not DECISION"),
    ({"kind": "DECISION", "details": {"expected_lifetime_seconds": 0, "risk_weight": 0}}, ""),
    ({"details": {"risk_weight": 0.5}}, "risk_weight belongs to RESIDUAL facts, not STATE"),
    ({"kind": "RESIDUAL", "details": {"risk_weight": 0.5}}, ""),
    ({"kind": "RESIDUAL", "details": {"risk_weight": 1.5}}, "risk_weight is 0-1"),
    ({"details": {"expected_lifetime_seconds": 10**14}}, "expected_lifetime_seconds must be"),
    ({"details": {"colour": "red"}}, "unknown detail 'colour'"),
    ({"kind": "DECISION", "reopen_trigger": "a", "details": {"reopen_trigger": "a"}},
     "reopen_trigger is given twice"),
    ({"details": None}, ""),
    ({"attribute": "-_-"}, "attribute is empty after normalisation"),
    ({"entity": "_"}, ""),
    ({"tags": ["lang.-python"]}, "malformed tag"),
    ({"tags": ["lang.python_3"]}, ""),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tokens = tmp_path_factory.mktemp("fact-args") / "principals.json"
    settings = GatewaySettings(internal_token=SecretStr("x"), tokens_file=str(tokens))
    mcp = build_mcp(settings, PrincipalStore(Path(settings.tokens_file)), Backends(settings))
    return {t.name: t for t in mcp._tool_manager.list_tools()}


@pytest.fixture(scope="module")
def mcp_model(served: dict[str, Any]) -> Any:
    return served["fact_set"]


@pytest.fixture(scope="module")
def rest_model() -> Any:
    return arguments_model(next(r for r in generated_routes()
                                if (r.method, r.path) == ("POST", "/v1/facts")))


def _refusal(model: Any, args: dict[str, Any]) -> str:
    try:
        model.model_validate(args)
    except ValidationError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize(("args", "words"), CASES)
def test_the_schema_accepts_what_the_check_accepts(rest_model: Any, mcp_model: Any,
                                                   args: dict[str, Any], words: str):
    body = SLOT | args
    schema = rest_model.model_json_schema()
    schema_ok = jsonschema.Draft202012Validator(schema).is_valid(body)
    rest, mcp = _refusal(rest_model, body), _refusal(mcp_model.fn_metadata.arg_model, body)
    assert schema_ok == (not words), (body, rest)
    assert (words in rest and words in mcp) if words else not rest and not mcp, (rest, mcp)


def test_mcp_input_schemas_have_no_root_combinators(served: dict[str, Any]):
    """Clients refuse or drop a tool with a root allOf/anyOf/oneOf or if/then:
    fact_set's input schema says the kind rule in words (and checks it)."""
    for name, tool in served.items():
        assert not {"allOf", "anyOf", "oneOf", "if", "then", "not"} & set(tool.parameters), name
    params = served["fact_set"].parameters["properties"]
    assert "DECISION only" in params["reopen_trigger"]["description"]
