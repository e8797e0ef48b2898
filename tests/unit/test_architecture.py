"""Static checks of the architecture rules and the topology derivation."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engram_runner.topology import load_topology, required_variables, start_order

from ..paths import REPO_ROOT

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


# --- no remote call inside a local transaction ------------------------------
# A transaction held open across a gRPC call leaves two services disagreeing
# on a partial failure (the callee committed, the caller rolled back, or the
# reverse). Remote results are computed before the transaction, or the write
# is a mark, then the call with an idempotency key, then a finalising one.
TX_OPENERS = {"transaction", "tenant_tx", "duty_tx"}
# Receivers whose awaited methods are gRPC calls: a service's Backends, the
# embedder client, a kit Caller.
REMOTE_RECEIVERS = {"backends", "_backends", "embedder", "_embedder", "_caller", "caller"}


def _callee_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _receiver_name(call: ast.Call) -> str:
    f = call.func
    while isinstance(f, ast.Attribute):
        f = f.value
        if isinstance(f, ast.Attribute) and f.attr in REMOTE_RECEIVERS:
            return f.attr
        if isinstance(f, ast.Name) and f.id in REMOTE_RECEIVERS:
            return f.id
    return ""


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of a body, not of the functions defined inside it."""
    out, todo = [], list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _awaited_calls(nodes: list[ast.AST]) -> list[ast.Call]:
    return [n.value for n in nodes if isinstance(n, ast.Await) and isinstance(n.value, ast.Call)]


def _local_name(call: ast.Call) -> str:
    """The name of a call to a function of this module (`f()`, `self.f()`)."""
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in (
            "self", "cls"):
        return f.attr
    return ""


def _opens_tx(item: ast.withitem, openers: set[str]) -> bool:
    return isinstance(item.context_expr, ast.Call) and _callee_name(item.context_expr) in openers


def remote_calls_in_transactions(source: str) -> list[tuple[int, str]]:
    """(line, call) for each remote call awaited inside a transaction, also
    through a function of the same module that makes one (to a fixpoint)."""
    tree = ast.parse(source)
    fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    openers, remote = set(TX_OPENERS), set()
    changed = True
    while changed:  # tx helpers (context managers around a tx) and remote wrappers
        changed = False
        for fn in fns:
            nodes = _own_nodes(fn)
            withs = [n for n in nodes if isinstance(n, ast.AsyncWith)]
            if fn.name not in openers and any(
                    isinstance(d, ast.Name) and d.id == "asynccontextmanager"
                    for d in fn.decorator_list) and any(
                    _opens_tx(i, openers) for w in withs for i in w.items):
                openers.add(fn.name)
                changed = True
            if fn.name not in remote and any(
                    _receiver_name(c) or _local_name(c) in remote
                    for c in _awaited_calls(nodes)):
                remote.add(fn.name)
                changed = True
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AsyncWith) and any(_opens_tx(i, openers) for i in node.items):
            body = [n for stmt in node.body for n in [stmt, *_own_nodes(stmt)]]
            found += [(c.lineno, ast.unparse(c.func)) for c in _awaited_calls(body)
                      if _receiver_name(c) or _local_name(c) in remote]
    return found


def test_the_static_check_sees_a_remote_call_in_a_transaction():
    bad = ("async def f(self):\n    async with tenant_tx(self._pool, ns) as conn:\n"
           "        await self._apply(conn)\n"
           "async def _apply(self, conn):\n    await self.backends.forget_sources(1)\n")
    assert remote_calls_in_transactions(bad) == [(3, "self._apply")]
    good = ("async def f(self):\n    v = await self._embedder.embed_many([t], ctx)\n"
            "    async with tenant_tx(self._pool, ns) as conn:\n        await conn.execute(v)\n")
    assert remote_calls_in_transactions(good) == []


def test_no_remote_call_inside_a_local_transaction():
    found = []
    for path in [*(REPO_ROOT / "services").rglob("*.py"), *(REPO_ROOT / "kit").rglob("*.py")]:
        found += [f"{path.relative_to(REPO_ROOT)}:{line}: {call}"
                  for line, call in remote_calls_in_transactions(path.read_text())]
    assert found == [], "remote calls inside a transaction:\n" + "\n".join(found)


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
