"""Static checks of the architecture rules and the topology derivation."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engram_cli.settings import REPO_ROOT
from engram_cli.topology import load_topology, required_variables, start_order

SERVICES = ["gateway", "memory", "cortex", "embedder", "dreamer", "coordination"]


def _imports(package_dir: Path) -> set[str]:
    found = set()
    for path in package_dir.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_services_never_import_each_other():
    for service in SERVICES:
        imported = _imports(REPO_ROOT / "services" / service / f"engram_{service}")
        others = {f"engram_{s}" for s in SERVICES if s != service} | {"engram_cli"}
        assert not imported & others, f"{service} imports {imported & others}"


def test_kit_has_no_service_imports():
    imported = _imports(REPO_ROOT / "kit" / "engram_kit")
    assert not {i for i in imported if i.startswith("engram_") and i != "engram_kit"}


def test_only_settings_modules_read_the_environment():
    for path in (REPO_ROOT / "services").rglob("*.py"):
        if "os.environ" in path.read_text() or "getenv" in path.read_text():
            raise AssertionError(f"{path} reads the environment outside a settings class")


def test_topology_is_derived_from_compose(tmp_path: Path):
    compose = REPO_ROOT / "docker-compose.yml"
    names = required_variables(compose.read_text())
    assert "POSTGRES_PASSWORD" in names and "ENGRAM_INTERNAL_TOKEN" in names
    topo = load_topology(compose, 40, tmp_path, {n: "s3cret" for n in names})
    assert sorted(topo.services) == sorted(SERVICES)
    memory = topo.services["memory"]
    assert memory.env["ENGRAM_EMBEDDER_ADDR"] == "127.0.0.1:8793"
    assert memory.env["ENGRAM_GRPC_PORT"] == "8791"
    assert memory.env["ENGRAM_GRPC_HOST"] == "127.0.0.1"
    assert memory.env["ENGRAM_DATABASE_URL"] == (
        "postgresql://engram_memory:s3cret@127.0.0.1:8796/engram")
    assert memory.ready_url == "http://127.0.0.1:8801/readyz"
    assert topo.infra_ports == {"postgres": 8796, "nats": 8797}
    gateway = topo.services["gateway"]
    assert gateway.env["ENGRAM_TOKENS_FILE"] == f"{tmp_path}/principals.json"
    order = start_order(topo.services)
    assert order.index("embedder") < order.index("memory") < order.index("gateway")
    assert "vllm-embed" not in topo.services  # profile-only services are not embedded
    # Migrations run once as the admin, in a one-shot job; no service holds the admin URL.
    assert list(topo.jobs) == ["migrate"]
    assert "ENGRAM_ADMIN_DATABASE_URL" in topo.jobs["migrate"].env
    assert not any("ENGRAM_ADMIN_DATABASE_URL" in s.env for s in topo.services.values())
    # NATS: the compose service's mounted config and the users' passwords
    assert topo.nats_config == REPO_ROOT / "deploy" / "nats" / "engram.conf"
    assert topo.nats_env["ENGRAM_NATS_MEMORY_PASSWORD"] == "s3cret"
    assert (memory.env["ENGRAM_NATS_USER"], memory.env["ENGRAM_NATS_PASSWORD"]) == (
        "memory", "s3cret")
    example = (REPO_ROOT / ".env.example").read_text()
    # (VAR: the `${VAR:?}` example in the file's header comment)
    assert [n for n in names if f"\n{n}=" not in example and n != "VAR"] == []


SQL_START = re.compile(
    r"^\s*(SELECT|INSERT\s+INTO|UPDATE\s+\w+(\s+\w+)?\s+SET|DELETE\s+FROM|WITH\s+\w+\s+AS|"
    r"CREATE\s|ALTER\s|DROP\s|TRUNCATE\s|LOCK\s+TABLE|SET\s+(LOCAL\s+)?\w+\s*(=|TO)|"
    r"GRANT\s|REVOKE\s)")
DB_CALLS = {"execute", "executemany", "fetch", "fetchrow", "fetchval", "copy_records_to_table",
            "cursor"}


def _service_modules() -> list[Path]:
    return sorted(p for p in (REPO_ROOT / "services").rglob("engram_*/*.py"))


def _string_of(node: ast.AST) -> str | None:
    """The literal text of a str constant or an f-string (its constant parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values
                       if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def sql_outside_repositories(path: Path, root: Path = REPO_ROOT) -> list[str]:
    """SQL text, or a database call given literal text, in a module that is
    not a repository (repo*.py); one hit per line."""
    if path.name.startswith("repo"):
        return []
    found: dict[int, str] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        text = _string_of(node)
        if isinstance(node, ast.expr) and text is not None and SQL_START.match(text):
            found.setdefault(node.lineno, text.strip()[:60])
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in DB_CALLS and node.args
                and _string_of(node.args[0]) is not None):
            found.setdefault(node.lineno, f"{node.func.attr}() with literal SQL")
    return [f"{path.relative_to(root)}:{line}: {what!r}" for line, what in sorted(found.items())]


def test_the_sql_check_catches_sql(tmp_path: Path):
    repo = REPO_ROOT / "services" / "cortex" / "engram_cortex" / "repo.py"
    assert sql_outside_repositories(repo) == []  # repositories may hold SQL
    bad = tmp_path / "engram_x" / "logic.py"
    bad.parent.mkdir()
    bad.write_text('async def f(conn):\n    await conn.execute("VACUUM")\n'
                   'Q = """\n  SELECT 1 FROM t"""\nU = f"UPDATE facts SET x = {1}"\n'
                   'NOT_SQL = "select a tag"\n')
    found = [hit.split(":")[1] for hit in sql_outside_repositories(bad, tmp_path)]
    assert found == ["2", "3", "5"]


def test_sql_lives_only_in_repository_modules():
    found = [hit for path in _service_modules() for hit in sql_outside_repositories(path)]
    assert found == [], "SQL outside repo*.py modules:\n" + "\n".join(found)


def test_servicers_are_explicit_classes_not_mixins():
    """A servicer inherits only its generated gRPC base; its dependencies come
    in one typed object, not as handler mixins."""
    for path in _service_modules():
        if not path.name.startswith("servicer"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [ast.unparse(b) for b in node.bases]
            if node.name.endswith("Servicer"):
                assert len(bases) == 1 and bases[0].endswith("Servicer") and "." in bases[0], (
                    f"{path.name}: {node.name}({', '.join(bases)}) mixes in handlers")
            else:
                assert not node.name.endswith("Handlers"), (
                    f"{path.name}: {node.name} is a handler mixin")
