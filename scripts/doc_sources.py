"""What the generated doc tables are made of, read from the files themselves.

Each reader parses source text (the .proto files, the Makefile, the decision
records, the servicer modules) and imports nothing of the project, so a page
regenerates without an environment and a module moving between packages does
not break the generator.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto" / "engram" / "v1"
DECISIONS_DIR = ROOT / "docs" / "decisions"
MAKEFILE = ROOT / "Makefile"
# Where a generated gRPC base class may be implemented.
SERVICER_GLOBS = ("services/*/engram_*/*.py", "kit/engram_kit/*.py")

_SERVICE = re.compile(r"^service\s+(\w+)\s*\{(.*?)^\}", re.MULTILINE | re.DOTALL)
_RPC = re.compile(r"rpc\s+(\w+)\s*\(\s*(stream\s+)?([\w.]+)\s*\)\s*returns\s*"
                  r"\(\s*(stream\s+)?([\w.]+)\s*\)\s*;[ \t]*(?://[ \t]*(.*))?")
_RECORD = re.compile(r"^(\d{4})-[\w-]+\.md$")
_TARGET = re.compile(r"^([a-z][\w-]*)\s*:(?!=)(.*)$")


@dataclass(frozen=True)
class Rpc:
    name: str
    request: str
    reply: str
    note: str


@dataclass(frozen=True)
class Service:
    name: str
    proto: str  # path relative to the repository root
    rpcs: tuple[Rpc, ...]


def _comment_above(lines: list[str]) -> str:
    """The `//` comment lines at the end of `lines`."""
    found: list[str] = []
    for line in reversed(lines):
        text = line.strip()
        if not text.startswith("//"):
            break
        found.insert(0, text.lstrip("/").strip())
    return " ".join(found)


def proto_services() -> list[Service]:
    """Every gRPC service declared under proto/, in file then declaration order."""
    out = []
    for path in sorted(PROTO_DIR.glob("*.proto")):
        text = path.read_text()
        for match in _SERVICE.finditer(text):
            body = match.group(2)
            rpcs = []
            for rpc in _RPC.finditer(body):
                above = _comment_above(body[: rpc.start()].rstrip(" \t").splitlines())
                beside = rpc.group(6) or ""
                request = ("stream " if rpc.group(2) else "") + rpc.group(3)
                reply = ("stream " if rpc.group(4) else "") + rpc.group(5)
                note = " ".join(part for part in (above, beside.strip()) if part)
                rpcs.append(Rpc(rpc.group(1), request, reply, note))
            out.append(Service(match.group(1), str(path.relative_to(ROOT)), tuple(rpcs)))
    return out


@dataclass(frozen=True)
class Servicer:
    module: str  # path relative to the repository root
    cls: str
    deps: str  # the type of its `deps` argument, or ""


def _deps_type(cls: ast.ClassDef) -> str:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for arg in node.args.args[1:]:
                if arg.arg == "deps" and arg.annotation is not None:
                    return ast.unparse(arg.annotation)
    return ""


def servicers() -> dict[str, list[Servicer]]:
    """Service name -> the classes that implement its generated base
    (`class X(<module>.<Service>Servicer)`), found by parsing the modules."""
    found: dict[str, list[Servicer]] = {}
    paths = sorted({p for pattern in SERVICER_GLOBS for p in ROOT.glob(pattern)})
    for path in paths:
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                name = ast.unparse(base).rsplit(".", 1)[-1]
                if name.endswith("Servicer") and name != "Servicer":
                    entry = Servicer(str(path.relative_to(ROOT)), node.name, _deps_type(node))
                    found.setdefault(name.removesuffix("Servicer"), []).append(entry)
    return found


@dataclass(frozen=True)
class Record:
    number: str
    file: str  # name inside docs/decisions/
    title: str


def decision_records() -> list[Record]:
    """Every decision record, by number; its title is its first heading
    without the number."""
    out = []
    for path in sorted(DECISIONS_DIR.glob("*.md")):
        match = _RECORD.match(path.name)
        if not match:
            continue
        heading = next((line for line in path.read_text().splitlines()
                        if line.startswith("# ")), "# " + path.stem)
        title = heading[2:].strip()
        title = title.removeprefix(match.group(1)).strip(" :-")
        out.append(Record(match.group(1), path.name, title))
    return out


@dataclass(frozen=True)
class Target:
    name: str
    prerequisites: tuple[str, ...]
    comment: str
    recipe: tuple[str, ...]


def _logical_lines(text: str) -> list[str]:
    """Makefile lines with backslash continuations joined."""
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        out.append(pending + line if not pending else pending + line.strip())
        pending = ""
    return out


def _without_make_calls(text: str) -> str:
    """`text` with every `$(...)` (nested ones included) removed."""
    out, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith("$(", i):
            depth += 1
            i += 2
            continue
        if depth and text[i] == "(":
            depth += 1
        elif depth and text[i] == ")":
            depth -= 1
        elif not depth:
            out.append(text[i])
        i += 1
    return "".join(out)


def make_targets() -> list[Target]:
    """The Makefile's .PHONY targets in file order, each with the comment
    block directly above it (a blank line ends a block) and its recipe."""
    lines = _logical_lines(MAKEFILE.read_text())
    phony = next((line.split(":", 1)[1].split() for line in lines
                  if line.startswith(".PHONY:")), [])
    out: list[Target] = []
    for i, line in enumerate(lines):
        match = _TARGET.match(line)
        if not match or match.group(1) not in phony:
            continue
        comment: list[str] = []
        j = i - 1
        while j >= 0 and lines[j].startswith("#"):
            comment.insert(0, lines[j].lstrip("#").strip())
            j -= 1
        recipe = []
        for body in lines[i + 1:]:
            if not body.startswith("\t"):
                break
            recipe.append(body.strip())
        prereqs = tuple(_without_make_calls(match.group(2)).split())
        out.append(Target(match.group(1), prereqs, " ".join(comment), tuple(recipe)))
    return out


def shown_command(command: str) -> str:
    """A recipe line as a reader would type it: the venv's tools by name."""
    return command.replace("$(VENV)/bin/", "").replace("$(VENV)", ".venv")
