"""evals/ is one package laid out by kind: few scripts at its top, every
folder of code a package, no import cycles between its modules, and no
module anywhere in the repository edits sys.path to find another."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from ..paths import REPO_ROOT

EVALS = REPO_ROOT / "evals"
EDITS = {"insert", "append", "extend", "remove", "clear", "pop"}


def tracked_python() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=REPO_ROOT, check=True,
                            capture_output=True, timeout=30).stdout
    return [REPO_ROOT / n.decode() for n in listed.split(b"\0") if n]


def test_at_most_ten_scripts_at_the_top_of_evals():
    top = sorted(p.name for p in EVALS.glob("*.py"))
    assert len(top) <= 10, top


def test_every_folder_of_evals_code_is_a_package():
    folders = {p.parent for p in EVALS.rglob("*.py")}
    bare = [str(f.relative_to(REPO_ROOT)) for f in folders if not (f / "__init__.py").exists()]
    assert not bare, f"folders of evals code without __init__.py: {bare}"


def _is_sys_path(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript):
        node = node.value
    return (isinstance(node, ast.Attribute) and node.attr == "path"
            and isinstance(node.value, ast.Name) and node.value.id == "sys")


def path_edits(source: str) -> list[int]:
    """The lines of `source` that change sys.path (calls on it, assignments
    to it or to a slice of it); strings and comments that name it are not."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in EDITS and _is_sys_path(node.func.value)):
            lines.append(node.lineno)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_is_sys_path(t) for t in targets):
                lines.append(node.lineno)
    return lines


def test_no_module_edits_sys_path():
    edits = [f"{p.relative_to(REPO_ROOT)}:{n}" for p in tracked_python() if p.exists()
             for n in path_edits(p.read_text())]
    assert not edits, f"sys.path edited (import through the package instead): {edits}"


def test_the_check_catches_what_it_should():
    for line in ("sys.path.insert(0, x)", "sys.path.append(x)", "sys.path[:0] = [x]",
                 "sys.path += [x]", "sys.path = [x]"):
        assert path_edits(line) == [1], line
    for line in ('env = {"PYTHONPATH": os.pathsep.join(sys.path)}', "ok = sys.path == before",
                 '"""sys.path.insert(0, x)"""', "# sys.path.append(x)"):
        assert path_edits(line) == [], line


def _imports(path: Path) -> set[str]:
    """The evals modules `path` imports, at any depth of the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("evals"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("evals"))
    return found


def test_no_import_cycles_in_evals():
    modules = {".".join(p.relative_to(REPO_ROOT).with_suffix("").parts): p
               for p in EVALS.rglob("*.py") if p.name != "__init__.py"}
    graph = {m: sorted(_imports(p) & modules.keys()) for m, p in modules.items()}
    done: set[str] = set()

    def visit(module: str, stack: list[str]) -> None:
        if module in stack:
            raise AssertionError("import cycle: " + " -> ".join([*stack, module]))
        if module in done:
            return
        for dep in graph[module]:
            visit(dep, [*stack, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
