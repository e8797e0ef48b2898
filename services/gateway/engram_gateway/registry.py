"""The tool registry: every MCP tool of the gateway, one entry each, and
what is derived from it (MCP registration, toolset tiers, grants and roles,
annotations, the REST routes' operations, docs/tools.md).

    python -m engram_gateway.registry --markdown > docs/tools.md"""

from __future__ import annotations

import argparse
import re

from .tools import (
    board,
    dream,
    episodes,
    facts,
    graph,
    hygiene,
    knowledge,
    lifecycle,
    memory,
    operator,
    sessions,
)
from .tools.spec import Access, Effect, Op, Retry, Tier, ToolSpec

TOOLS: list[ToolSpec] = [
    *memory.TOOLS, *episodes.TOOLS, *board.TOOLS, *facts.TOOLS,
    *graph.TOOLS, *knowledge.TOOLS, *dream.TOOLS, *sessions.TOOLS,
    *lifecycle.TOOLS, *hygiene.TOOLS, *operator.TOOLS,
]
BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
TIERS: dict[str, int] = {t.name: int(t.tier) for t in TOOLS}


def tool(name: str) -> ToolSpec:
    return BY_NAME[name]


def operation(name: str, action: str = "") -> Op:
    """One operation: the tool's only one, or the one of `action`."""
    return BY_NAME[name].ops[action]


def operations() -> list[tuple[ToolSpec, str, Op]]:
    """Every (tool, action, operation) of the registry, in table order."""
    return [(t, action, o) for t in TOOLS for action, o in t.ops.items()]


RETRY_WORDS = {Retry.SAFE: "safe", Retry.CONDITIONAL: "only as noted", Retry.UNSAFE: "no"}
GRANT_WORDS = {Access.READ: "read", Access.WRITE: "read-write",
               Access.ERASE: "read-write, erase (reviewer or operator role)",
               Access.REVIEWER: "read-write, reviewer or operator role",
               Access.OPERATOR: "read-write, operator role"}


def _summary(spec: ToolSpec) -> str:
    first = re.split(r"(?<=[.?])\s(?=[A-Z])", " ".join(spec.description.split()), maxsplit=1)[0]
    return first.replace("|", "\\|")


def _hint(value: bool | None) -> str:
    return "-" if value is None else str(value).lower()


def markdown() -> str:
    """docs/tools.md: one row per operation, then each tool's MCP annotations."""
    lines = [
        "# Tools", "",
        "Generated from the gateway's tool registry "
        "(`services/gateway/engram_gateway/registry.py`) by "
        "`python -m engram_gateway.registry --markdown > docs/tools.md`; do not edit by hand.",
        "", "- **tier**: the smallest toolset (`minimal`, `core`, `full`) that shows the tool.",
        "- **grant**: what the principal needs on the namespace (a read-only grant may call "
        "the read operations only); reviewer and operator operations also need that role. "
        "**erase** marks a permanent deletion or a dream rollback: it needs the erase grant, "
        "which the reviewer and operator roles carry and an agent does not; `with X=true` "
        "says the argument that makes a call one.",
        "- **effect**: `none` reads; `session` changes only what you see; `additive` adds or "
        "corrects (history is kept); `destructive` deletes, withdraws or overrides.",
        "- **retry**: whether a client may repeat the same call after a lost reply without "
        "a second effect; `only as noted` tools take a `request_id` that makes a retry safe "
        "(see [Retrying a call](memory.md#retrying-a-call)).", "",
        "| tool | action | tier | grant | effect | retry | when it is safe | REST |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for spec, action, o in operations():
        rest = f"`{o.rest}`" if o.rest else ""
        note = o.note if o.retry is not Retry.SAFE or o.effect is not Effect.NONE else "reads"
        grant = GRANT_WORDS[o.access] + (f"; with {o.erase_when}=true: erase"
                                         if o.erase_when else "")
        lines.append(f"| `{spec.name}` | {action or ''} | {spec.tier.label} | "
                     f"{grant} | {o.effect.value} | {RETRY_WORDS[o.retry]} | "
                     f"{note} | {rest} |")
    lines += ["", "## MCP annotations", "",
              "Derived from the operations: `readOnlyHint` when none has an effect, "
              "`destructiveHint` when any is destructive, `idempotentHint` when every one is "
              "safe to repeat; `openWorldHint` is false (every tool acts on this deployment's "
              "own stores).", "",
              "| tool | what it does | readOnly | destructive | idempotent | openWorld |",
              "|---|---|---|---|---|---|"]
    for spec in TOOLS:
        a = spec.annotations
        lines.append(f"| `{spec.name}` | {_summary(spec)} | {_hint(a.read_only_hint)} | "
                     f"{_hint(a.destructive_hint)} | {_hint(a.idempotent_hint)} | "
                     f"{_hint(a.open_world_hint)} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="The gateway's tool registry.")
    parser.add_argument("--markdown", action="store_true", help="print docs/tools.md")
    if parser.parse_args().markdown:
        print(markdown(), end="")  # noqa: T201
    else:
        for spec in TOOLS:
            print(f"{spec.name}\t{spec.tier.label}\t{','.join(spec.ops) or '-'}")  # noqa: T201


if __name__ == "__main__":
    main()

__all__ = ["TIERS", "TOOLS", "Tier", "markdown", "operation", "operations", "tool"]
