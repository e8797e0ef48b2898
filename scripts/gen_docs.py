"""Write the doc tables that mirror code, between markers in the pages.

A generated region is

    <!-- generated: NAME (scripts/gen_docs.py; do not edit) -->
    ...
    <!-- /generated -->

and only its inside is rewritten, so the prose around it stays hand-written.
The sources are parsed, never imported (doc_sources.py). `make docs` runs
this (`python -m scripts.gen_docs`); `--check` exits 1 when a page is stale,
and tests/unit/test_gen_docs.py fails the same way. A merge that conflicts
inside a region is resolved by regenerating.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable

from scripts import doc_sources as src

ROOT = src.ROOT
REGION = re.compile(r"(<!-- generated: ([\w-]+)[^>]*-->\n)(.*?)(<!-- /generated -->)", re.DOTALL)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)]


def render_decisions() -> list[str]:
    return _table(["record", "decision"],
                  [[f"[{r.number}]({r.file})", r.title] for r in src.decision_records()])


def _servicer_cell(name: str, found: dict[str, list[src.Servicer]]) -> str:
    impls = found.get(name)
    if not impls:
        raise SystemExit(f"no class implements {name}Servicer under {src.SERVICER_GLOBS}")
    return "; ".join(f"`{s.module}` (`{s.cls}`" + (f", `{s.deps}`" if s.deps else "") + ")"
                     for s in impls)


def render_cortex_services() -> list[str]:
    found = src.servicers()
    rows = [[f"`{s.name}`", ", ".join(r.name for r in s.rpcs), _servicer_cell(s.name, found)]
            for s in src.proto_services() if s.proto.endswith("/cortex.proto")]
    return _table(["service", "RPCs", "servicer"], rows)


def render_rpcs() -> list[str]:
    found = src.servicers()
    out: list[str] = []
    for service in src.proto_services():
        out += [f"### {service.name}", "",
                f"Declared in `{service.proto}`; served by {_servicer_cell(service.name, found)}.",
                ""]
        out += _table(["RPC", "request", "reply", "note"],
                      [[f"`{r.name}`", f"`{r.request}`", f"`{r.reply}`", r.note]
                       for r in service.rpcs])
        out.append("")
    return out[:-1]


def _runs(target: src.Target) -> str:
    shown = [src.shown_command(line) for line in target.recipe]
    if not shown:
        return "(its prerequisites only)"
    if len(shown) <= 2 and all(len(line) <= 110 for line in shown):
        return "; ".join(f"`{line}`" for line in shown)
    many = f"{len(shown)} commands" if len(shown) > 1 else "a long command"
    return f"{many} (see the Makefile)"


def render_make_targets() -> list[str]:
    rows = []
    for target in src.make_targets():
        needs = [p for p in target.prerequisites if p != "setup"]
        what = target.comment + (f" Needs {', '.join(needs)}." if needs else "")
        rows.append([f"`make {target.name}`", what.strip(), _runs(target)])
    return _table(["target", "what", "runs"], rows)


def render_make_lint() -> list[str]:
    lint = next(t for t in src.make_targets() if t.name == "lint")
    steps = [f"`{src.shown_command(line)}`" for line in lint.recipe]
    said = steps[0] if len(steps) == 1 else ", then ".join(steps)
    return [f"`make lint` runs {said} (pyright in the mode set under "
            "`[tool.pyright]` in `pyproject.toml`)."]


RENDERERS: dict[str, Callable[[], list[str]]] = {
    "decisions": render_decisions,
    "cortex-services": render_cortex_services,
    "rpcs": render_rpcs,
    "make-targets": render_make_targets,
    "make-lint": render_make_lint,
}
# The pages and the regions each must hold: a region deleted by a merge or an
# edit is an error, not a silently ungenerated table.
PAGES: dict[str, tuple[str, ...]] = {
    "docs/decisions/README.md": ("decisions",),
    "docs/architecture.md": ("cortex-services",),
    "docs/rpcs.md": ("rpcs",),
    "CONTRIBUTING.md": ("make-lint", "make-targets"),
}


class MissingRegion(Exception):
    pass


def updated(page: str, text: str) -> str:
    """`text` with each generated region rendered again."""
    seen = {m.group(2) for m in REGION.finditer(text)}
    missing = [name for name in PAGES.get(page, ()) if name not in seen]
    if missing:
        raise MissingRegion(f"{page} lacks the generated region(s) {missing}")
    unknown = seen - RENDERERS.keys()
    if unknown:
        raise MissingRegion(f"{page} has unknown generated region(s) {sorted(unknown)}")

    def fill(match: re.Match[str]) -> str:
        body = "\n".join(RENDERERS[match.group(2)]()) + "\n"
        return match.group(1) + body + match.group(4)

    return REGION.sub(fill, text)


def stale_pages() -> list[str]:
    return [page for page in PAGES
            if updated(page, (ROOT / page).read_text()) != (ROOT / page).read_text()]


def main() -> int:
    parser = argparse.ArgumentParser(description="Write the generated doc tables.")
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is stale")
    args = parser.parse_args()
    if args.check:
        stale = stale_pages()
        for page in stale:
            sys.stderr.write(f"{page} is stale: run make docs\n")
        return 1 if stale else 0
    for page in PAGES:
        path = ROOT / page
        text = path.read_text()
        new = updated(page, text)
        if new != text:
            path.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
