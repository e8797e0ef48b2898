"""The gateway's shape: a short top level (doors, pipeline, tools, shaping,
net and the wiring), and every /v1 route generated from the registry."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from engram_gateway.app import build_app
from engram_gateway.doors import rest_routes
from engram_gateway.settings import GatewaySettings

from ..paths import REPO_ROOT

PACKAGE = REPO_ROOT / "services" / "gateway" / "engram_gateway"
GENERATOR = PACKAGE / "doors" / "rest_routes.py"
MAX_TOP_LEVEL = 15
# FastAPI's route methods: a call of one with a /v1 path declares a route.
ROUTE_CALLS = {"get", "post", "put", "patch", "delete", "api_route", "add_api_route",
               "route", "add_route", "websocket"}


def top_level(package: Path) -> list[str]:
    return sorted(p.name for p in package.iterdir()
                  if p.name != "__pycache__" and (p.suffix == ".py" or p.is_dir()))


def test_gateway_layout():
    entries = top_level(PACKAGE)
    assert len(entries) <= MAX_TOP_LEVEL, entries
    for sub in ("doors", "pipeline", "tools", "shaping", "net"):
        assert (PACKAGE / sub / "__init__.py").is_file(), sub


def _v1(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) \
        and node.value.startswith("/v1")


def hand_written_routes(source: str) -> list[int]:
    """Lines of `source` that declare a /v1 route or router: a route method
    called with a /v1 path, or a router with a /v1 prefix."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else \
            getattr(node.func, "id", "")
        path = next((k.value for k in node.keywords if k.arg in ("path", "prefix")), None)
        first = node.args[0] if node.args else None
        if (name in ROUTE_CALLS and (_v1(first) or _v1(path))) or \
                (name in ("APIRouter", "include_router") and _v1(path)):
            lines.append(node.lineno)
    return lines


def flat(routes: list[Any]) -> list[Any]:
    """The routes, with those of included routers (FastAPI wraps them)."""
    out = []
    for r in routes:
        inner = getattr(r, "original_router", None)
        out += flat(list(inner.routes)) if inner is not None else [r]
    return out


def test_no_v1_route_is_written_by_hand(tmp_path: Path):
    """Only doors/rest_routes.py adds /v1 routes, one per registry `rest=`;
    the served app's /v1 endpoints are all its."""
    found = {str(p.relative_to(PACKAGE)): lines for p in sorted(PACKAGE.rglob("*.py"))
             if p != GENERATOR and (lines := hand_written_routes(p.read_text()))}
    assert found == {}
    app = build_app(GatewaySettings(internal_token=SecretStr("x"),
                                    tokens_file=str(tmp_path / "principals.json")))
    served = {(r.path, getattr(r, "endpoint", None)) for r in flat(app.routes)
              if getattr(r, "path", "").startswith("/v1") and r.path != "/v1/openapi.json"}
    assert served
    assert {p for p, e in served if getattr(e, "__module__", "") != rest_routes.__name__} == set()
    assert len(served) == len(rest_routes.generated_routes())


def test_the_route_check_sees_a_hand_written_route():
    source = ('router = APIRouter(prefix="/v1/x")\n'
              '@app.get("/v1/memories")\nasync def f(): ...\n'
              'app.add_api_route(path="/v1/y", endpoint=f)\n'
              '@app.get("/healthz")\nasync def g(): ...\n')
    assert hand_written_routes(source) == [1, 2, 4]
