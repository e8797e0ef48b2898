"""Helpers every benchmark script shares."""

from __future__ import annotations

import argparse
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.types import CallToolResult

    from engram_runner.stack import Stack

REPO_ROOT = Path(__file__).resolve().parents[2]


def command_line() -> str:
    """The command that produced an artefact, with repo-relative paths; a
    file outside the repository (the LoCoMo data) by its absolute path, so
    the command reads the same from any working directory."""
    def rel(path: Path) -> str:
        return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)

    def arg(value: str) -> str:
        path = Path(value)
        if value.startswith("-") or not path.exists():
            return value
        return rel(path.resolve())

    spec = getattr(sys.modules["__main__"], "__spec__", None)
    script = ["-m", spec.name] if spec else [rel(Path(sys.argv[0]).resolve())]
    return shlex.join([rel(Path(sys.executable)), *script, *map(arg, sys.argv[1:])])


def agent_token(stack: Stack) -> str:
    """The stack's first agent token: minted by this start, or by an earlier
    start on the same data directory (kept in its agent-token file)."""
    # Imported here: the embedder benchmark runs on GPU hosts that have only
    # the embedder's dependencies (evals/gpu/), not the CLI's or MCP's.
    from engram_runner.stack import AGENT_TOKEN_FILE

    return stack.first_token or (stack.data_dir / AGENT_TOKEN_FILE).read_text().strip()


def tool_text(result: CallToolResult) -> str:
    """The text of a tool result's first content block: engram's replies and
    errors are text, so a missing or other block is an error."""
    from mcp.types import TextContent

    block = result.content[0] if result.content else None
    if not isinstance(block, TextContent):
        raise TypeError(f"expected a text block in the tool result, got {block!r}")
    return block.text


async def tool_call(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call an MCP tool that must succeed (a failure raises, naming the tool)
    and return its structured reply, or its text parsed as JSON."""
    import json

    result = await client.call_tool(tool, args)
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")
    if isinstance(result.structured_content, dict):
        return result.structured_content
    return json.loads(tool_text(result))


def stop_stack_on_sigterm() -> None:
    """A benchmark stops the stack it started in a `finally`; SIGTERM (a
    killed run, a CI timeout) would skip it and leave the services and the
    embedded Postgres running. Raise SystemExit instead, so it unwinds."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def results_dir() -> Path:
    """Where artefacts go: evals/results/, or $ENGRAM_BENCH_RESULTS_DIR (the
    smoke runs write to a temporary directory, never into the repo)."""
    import os
    return Path(os.environ.get("ENGRAM_BENCH_RESULTS_DIR") or REPO_ROOT / "evals" / "results")


def parse_with_smoke(parser: argparse.ArgumentParser, smoke: dict[str, Any]) -> argparse.Namespace:
    """Parse the arguments; `--smoke` replaces them with `smoke` (tiny sizes):
    a published number whose command no longer runs is a defect, so CI runs
    every benchmark this way."""
    parser.add_argument("--smoke", action="store_true",
                        help="tiny sizes: checks the benchmark still runs (CI)")
    args = parser.parse_args()
    if args.smoke:
        for name, value in smoke.items():
            setattr(args, name, value)
    return args


def shown(path: Path) -> str:
    """An artefact's path as printed: repo-relative when it is in the repo."""
    return str(path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path)


def git_state() -> dict[str, Any]:
    """The code measured, taken before the stack starts: HEAD plus how many files
    differed from it (others may be editing the working tree)."""
    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], cwd=REPO_ROOT, capture_output=True,
                              text=True, check=False).stdout.strip()

    changed = [ln for ln in git("status", "--porcelain").splitlines() if ln]
    return {"commit": git("rev-parse", "HEAD"), "changed_files": len(changed)}
