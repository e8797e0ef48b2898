"""Hand-written tables that sit beside the prose explaining them agree with
the code they name: every `ENGRAM_*` row of a settings table names a real
setting and states its default, every route in docs/rest.md's overview is
a route of the generated docs/rest-routes.md with the same tool, every
table headed `tool` names tools the generated docs/tools.md lists, and the
ports table in operations.md states each service's default ports."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from ..paths import REPO_ROOT

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
ROW = re.compile(r"^\|\s*`(ENGRAM_[A-Z0-9_]+)`\s*\|(.*)$")


def _limits_generator():
    name = "gen_limits_doc"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def code_defaults() -> dict[str, str]:
    gen = _limits_generator()
    found: dict[str, str] = {}
    for _, rel in gen.MODULES:
        for _, _, settings in gen.settings_of(REPO_ROOT / rel):
            for setting in settings:
                found[setting.env] = setting.default
    return found


def stated_defaults(text: str) -> list[tuple[str, str]]:
    """(variable, default cell) for each row of a table whose second column
    is headed "default", outside the generated settings reference."""
    text = text.split("<!-- settings:begin", 1)[0]
    out: list[tuple[str, str]] = []
    default_column = False
    for line in text.splitlines():
        if not line.startswith("|"):
            default_column = False
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 1 and cells[1].lower() == "default":
            default_column = True
            continue
        match = ROW.match(line)
        if default_column and match:
            out.append((match.group(1), cells[1]))
    return out


def _pages() -> list[Path]:
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]


def test_settings_tables_state_the_code_defaults():
    defaults = code_defaults()
    wrong = []
    checked = 0
    for page in _pages():
        for env, cell in stated_defaults(page.read_text()):
            where = f"{page.relative_to(REPO_ROOT)}: {env}"
            if env not in defaults:
                wrong.append(f"{where} is no setting")
                continue
            stated, actual = NUMBER.search(cell), NUMBER.search(defaults[env])
            literal = re.fullmatch(r"`([^`]+)`", cell)
            if literal and not stated:
                checked += 1
                if literal.group(1) not in defaults[env]:
                    wrong.append(f"{where}: the page says {cell}, the code {defaults[env]}")
            elif stated:
                checked += 1
                if not actual or float(stated.group()) != float(actual.group()):
                    wrong.append(f"{where}: the page says {cell}, the code {defaults[env]}")
    assert checked >= 8, "the tables this test reads were not found"
    assert not wrong, "\n".join(wrong)


def test_a_wrong_default_is_caught():
    text = "| setting | default | what |\n|---|---|---|\n| `ENGRAM_START_TIMEOUT_S` | 90 | x |\n"
    assert stated_defaults(text) == [("ENGRAM_START_TIMEOUT_S", "90")]
    actual = NUMBER.search(code_defaults()["ENGRAM_START_TIMEOUT_S"])
    assert actual and float(actual.group()) != 90


REST_ROW = re.compile(r"^\| `([A-Z]+) (/[^`?\s]*)[^`]*`[^|]*\| `(\w+)[(`]", re.MULTILINE)


def _routes(method: str, path: str) -> list[tuple[str, str]]:
    """(method, path) with `{...}` placeholders made equal, and a last
    segment written `a\\|b` as one route each."""
    path = re.sub(r"\{[^}]*\}", "{}", path)
    head, _, last = path.rpartition("/")
    return [(method, f"{head}/{alt}") for alt in last.split("\\|")]


def test_the_rest_overview_names_routes_that_exist():
    """docs/rest.md groups the routes by area in prose tables; each row's
    method, path and tool must be a row of the generated docs/rest-routes.md."""
    generated = (REPO_ROOT / "docs" / "rest-routes.md").read_text()
    routes = {r: tool for m, p, tool in REST_ROW.findall(generated) for r in _routes(m, p)}
    rows = REST_ROW.findall((REPO_ROOT / "docs" / "rest.md").read_text())
    assert len(rows) >= 40
    wrong = [f"{m} {p} -> {tool}" for m, p, tool in rows
             if any(routes.get(r) != tool for r in _routes(m, p))]
    assert not wrong, f"docs/rest.md names routes docs/rest-routes.md lacks: {wrong}"
    assert _routes("POST", "/v1/x/{name}/a\\|b") == [("POST", "/v1/x/{}/a"), ("POST", "/v1/x/{}/b")]


def tool_rows(text: str) -> list[str]:
    """The tool names in the first column of every table headed `| tool |`."""
    names: list[str] = []
    in_table = False
    for line in text.splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        first = line.strip("|").split("|", 1)[0].strip()
        if first == "tool":
            in_table = True
        elif in_table and not first.startswith("---"):
            names += re.findall(r"`(\w+)`", first)
    return names


def test_tool_tables_name_tools_that_exist():
    generated = (REPO_ROOT / "docs" / "tools.md").read_text()
    served = set(re.findall(r"^\| `(\w+)` \|", generated, re.MULTILINE))
    named = {page.relative_to(REPO_ROOT).as_posix(): tool_rows(page.read_text())
             for page in _pages() if page.name != "tools.md"}
    assert sum(len(v) for v in named.values()) >= 15
    wrong = [f"{page}: {tool}" for page, tools in named.items() for tool in tools
             if tool not in served]
    assert not wrong, f"tables name tools the registry does not serve: {wrong}"
    assert tool_rows("| tool | x |\n|---|---|\n| `a` / `b` | y |\n\n| `c` |") == ["a", "b"]


def _service_ports() -> dict[str, tuple[str, str]]:
    """Service -> (default gRPC port, default ops HTTP port) from its settings."""
    gen = _limits_generator()
    out: dict[str, tuple[str, str]] = {}
    for title, rel in gen.MODULES:
        if not rel.startswith("services/"):
            continue
        found = {s.env: s.default for _, _, settings in gen.settings_of(REPO_ROOT / rel)
                 for s in settings}
        out[title] = (_number(found, "ENGRAM_GRPC_PORT"), _number(found, "ENGRAM_HTTP_PORT"))
    return out


def _number(defaults: dict[str, str], env: str) -> str:
    match = NUMBER.search(defaults.get(env, ""))
    return match.group() if match else ""


def test_the_ports_table_states_the_settings_defaults():
    text = (REPO_ROOT / "docs" / "operations.md").read_text()
    section = text.split("\n## Ports\n", 1)[1].split("\n## ", 1)[0]
    rows = {cells[0]: cells[1:] for line in section.splitlines() if line.startswith("| ")
            for cells in [[c.strip() for c in line.strip("|").split("|")]]}
    ports = _service_ports()
    assert len(ports) == 6
    for service, (grpc, http) in ports.items():
        assert service in rows, f"operations.md#ports lacks {service}"
        main, ops = rows[service][0], rows[service][1]
        if grpc:
            assert main.startswith(f"{grpc} gRPC") and ops == http, (service, grpc, http)
        else:
            assert main.startswith(http), (service, http)
