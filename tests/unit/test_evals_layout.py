"""evals/ is one package laid out by kind: few scripts at its top, every
folder of code a package, no import cycles between its modules, and no
module anywhere in the repository edits sys.path to find another."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

from engram_cli.settings import REPO_ROOT

EVALS = REPO_ROOT / "evals"
PATH_EDIT = re.compile(r"\bsys\.path\s*(?:\.\s*(?:insert|append|extend|remove)\b"
                       r"|\[[^\]]*\]\s*=(?!=)|\+?=(?!=))")


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


def test_no_module_edits_sys_path():
    edits = [f"{p.relative_to(REPO_ROOT)}:{n}" for p in tracked_python() if p.exists()
             for n, line in enumerate(p.read_text().splitlines(), 1) if PATH_EDIT.search(line)]
    assert not edits, f"sys.path edited (import through the package instead): {edits}"


def test_the_pattern_catches_what_it_should():
    for line in ("sys.path.insert(0, x)", "sys.path.append(x)", "sys.path[:0] = [x]",
                 "sys.path += [x]", "sys.path = [x]"):
        assert PATH_EDIT.search(line), line
    assert not PATH_EDIT.search('env = {"PYTHONPATH": os.pathsep.join(sys.path)}')
    assert not PATH_EDIT.search("if sys.path == before:")


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
