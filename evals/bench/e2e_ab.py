"""Store and search latency of this tree against a base commit, interleaved.

The base commit is checked out into a temporary git worktree and runs from its
own sources (PYTHONPATH puts its packages before this tree's editable
install, and the stack's services inherit it); both sides use this venv. The
end-to-end latency benchmark (MCP and direct gRPC, store and search, each run
on a fresh stack) runs base, new, base, new, ... so both sides meet the same
machine load. The artefact keeps every run and, per path and tool, the ratio
new/base of the medians of the runs' p50 and p95; a ratio above
1 + --tolerance is reported as slower (exit 1).

    make bench-e2e-ab BASE=<commit>      # default: main
Writes evals/results/latency-ab-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.harness.benchlib import (
    REPO_ROOT,
    command_line,
    git_state,
    parse_with_smoke,
    results_dir,
    shown,
)

PATHS = ("mcp", "grpc_direct")
TOOLS = ("store", "search")
STATS = ("p50_ms", "p95_ms")
# The latency benchmark as a module (this layout) or a script (before evals/
# became a package): a base commit may have either.
BENCH_MODULE = "evals.bench.mcp_latency"
BENCH_SCRIPT = Path("evals/bench_mcp_latency.py")


def source_roots(tree: Path) -> list[str]:
    """The folders that hold a tree's importable packages: the parent of every
    `engram*` package (services, kit, CLI, contracts) and the tree itself
    (evals, scripts, tests)."""
    roots = {str(tree)}
    for pattern in ("*/engram*/__init__.py", "*/*/engram*/__init__.py"):
        roots.update(str(init.parent.parent) for init in tree.glob(pattern)
                     if not init.relative_to(tree).parts[0].startswith("."))
    return sorted(roots)


def bench_command(tree: Path, n: int, port_offset: int) -> list[str]:
    run = ([sys.executable, str(tree / BENCH_SCRIPT)] if (tree / BENCH_SCRIPT).exists()
           else [sys.executable, "-m", BENCH_MODULE])
    return [*run, "--n", str(n), "--port-offset", str(port_offset)]


def run_side(tree: Path, n: int, port_offset: int, work: Path) -> dict[str, Any]:
    """One benchmark run of `tree` on a fresh stack; its artefact, read back."""
    out = Path(tempfile.mkdtemp(prefix="side-", dir=work))
    env = {**os.environ, "ENGRAM_BENCH_RESULTS_DIR": str(out),
           "PYTHONPATH": os.pathsep.join(source_roots(tree))}
    subprocess.run(bench_command(tree, n, port_offset), cwd=tree, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    found = sorted(out.glob("mcp-latency-*.json"))
    if len(found) != 1:
        raise RuntimeError(f"expected one mcp-latency artefact in {out}, found {len(found)}")
    return json.loads(found[0].read_text())


def medians(runs: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per path, tool and statistic: the median over the runs."""
    return {path: {tool: {stat: round(statistics.median(r[path][tool][stat] for r in runs), 3)
                          for stat in STATS} for tool in TOOLS} for path in PATHS}


def ratios(new: dict[str, Any], base: dict[str, Any]) -> dict[str, float]:
    return {f"{path}_{tool}_{stat}": round(new[path][tool][stat] / base[path][tool][stat], 3)
            for path in PATHS for tool in TOOLS for stat in STATS}


def resolve(rev: str) -> str:
    done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                          cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"--base {rev!r} is not a commit of this repository")
    return done.stdout.strip()


def interleave(base_tree: Path, args: argparse.Namespace, work: Path) -> dict[str, list]:
    runs: dict[str, list[dict[str, Any]]] = {"base": [], "new": []}
    for i in range(args.pairs):
        for side, tree in (("base", base_tree), ("new", REPO_ROOT)):
            sys.stdout.write(f"pair {i + 1}/{args.pairs}: {side}\n")
            sys.stdout.flush()
            runs[side].append(run_side(tree, args.n, args.port_offset, work))
    return runs


def measure(base: str, args: argparse.Namespace) -> dict[str, list]:
    with tempfile.TemporaryDirectory(prefix="engram-ab-") as tmp:
        work = Path(tmp)
        base_tree = work / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(base_tree), base],
                       cwd=REPO_ROOT, check=True)
        try:
            return interleave(base_tree, args, work)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base_tree)],
                           cwd=REPO_ROOT, check=False)


def report(base: str, args: argparse.Namespace, runs: dict[str, list],
           started: datetime, new: dict[str, Any]) -> dict[str, Any]:
    base_med, new_med = medians(runs["base"]), medians(runs["new"])
    ratio = ratios(new_med, base_med)
    slower = sorted(k for k, v in ratio.items() if v > 1 + args.tolerance)
    return {
        "timestamp": started.isoformat(), "base": base, "new": new,
        "pairs": args.pairs, "n": args.n, "tolerance": args.tolerance,
        "machine": {"cpu_count": os.cpu_count(), "loadavg_1m_at_end": os.getloadavg()[0]},
        "base_median": base_med, "new_median": new_med, "ratios_new_over_base": ratio,
        "slower": slower, "no_slower": not slower, "runs": runs, "command": command_line(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--base", default="main", help="the commit to compare against")
    parser.add_argument("--pairs", type=int, default=3, help="base/new runs, interleaved")
    parser.add_argument("--n", type=int, default=60, help="timed calls per tool and path a run")
    parser.add_argument("--port-offset", type=int, default=300)
    parser.add_argument("--tolerance", type=float, default=0.05,
                        help="a new/base ratio above 1 + this is reported as slower")
    # The smoke run checks the mechanism on HEAD against itself: no verdict.
    args = parse_with_smoke(parser, {"pairs": 1, "n": 4, "base": "HEAD"})
    if args.pairs < 1 or args.n < 2:
        parser.error("--pairs must be at least 1 and --n at least 2")
    base, started, new = resolve(args.base), datetime.now(UTC), git_state()
    result = report(base, args, measure(base, args), started, new)
    out_dir = results_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"latency-ab-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(json.dumps({"ratios_new_over_base": result["ratios_new_over_base"],
                                 "slower": result["slower"]}, indent=2) + "\n")
    sys.stdout.write(f"wrote {shown(path)}\n")
    return 1 if result["slower"] and not args.smoke else 0


if __name__ == "__main__":
    sys.exit(main())
