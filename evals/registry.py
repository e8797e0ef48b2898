"""Every benchmark, ablation and probe in one table: its make target, module,
the artefact kinds it writes, how it runs at tiny sizes, and where the report
shows it. `make bench-smoke` runs the smoke rows from here, and
tests/unit/test_bench_registry.py holds the Makefile, the docs and the
committed artefacts to it.

    .venv/bin/python -m evals.registry                # list the rows
    make bench-smoke                                  # every smoke row
    .venv/bin/python -m evals.registry smoke --shared DIR --only locomo
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Role(StrEnum):
    BENCH = "bench"  # a published number with a make target
    ABLATION = "ablation"  # variants of the ranking, in process
    PROBE = "probe"  # a one-off measurement behind a decision


@dataclass(frozen=True)
class Benchmark:
    name: str
    module: str
    kinds: tuple[str, ...]  # artefact name prefixes: <kind>-<UTC stamp>[-variant].json
    report: str  # the page (and heading) that shows its numbers
    role: Role = Role.BENCH
    target: str | None = None  # the make target; None: run the module
    smoke: tuple[str, ...] | None = ("--smoke",)  # None: not run by `make bench-smoke`
    locomo: bool = False  # reads LoCoMo from shared/ (--data, --audit)

    def smoke_command(self, shared: Path) -> list[str]:
        assert self.smoke is not None
        data = ["--data", str(shared / "bench" / "locomo10.json"),
                "--audit", str(shared / "bench" / "locomo-audit" / "errors.json")]
        return [sys.executable, "-m", self.module, *self.smoke, *(data if self.locomo else [])]


PAGE = "docs/benchmarks.md"

BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("e2e", "evals.bench.mcp_latency", ("mcp-latency",), f"{PAGE}#mcp-latency",
              target="bench-e2e"),
    Benchmark("e2e-ab", "evals.bench.e2e_ab", ("latency-ab",),
              f"{PAGE}#a-commit-against-its-base-interleaved", target="bench-e2e-ab"),
    Benchmark("embedder", "evals.bench.embedder", ("embedder",), f"{PAGE}#embedder",
              target="bench-embedder"),
    Benchmark("scale", "evals.bench.scale", ("scale",), f"{PAGE}#one-namespace-at-scale",
              target="bench-scale"),
    Benchmark("documents", "evals.bench.documents", ("documents",),
              f"{PAGE}#document-chunks-at-scale", target="bench-documents"),
    Benchmark("store-cpu", "evals.bench.store_cpu", ("store-cpu",),
              f"{PAGE}#where-a-stores-time-goes", target="bench-store-cpu"),
    Benchmark("board", "evals.bench.board", ("board",), f"{PAGE}#agent-board",
              target="bench-board"),
    Benchmark("conflicts", "evals.bench.conflicts", ("conflicts",),
              f"{PAGE}#conflict-typing-in-fact_set", target="bench-conflicts"),
    Benchmark("extraction", "evals.bench.extraction", ("extraction-rules", "extraction-openai"),
              f"{PAGE}#fact-extraction-by-the-dreamer", target="bench-extraction"),
    Benchmark("hooks", "evals.bench.hooks", ("hooks",), f"{PAGE}#hooks", target="bench-hooks"),
    Benchmark("capacity", "evals.bench.capacity", ("capacity",), "docs/scaling.md#measured",
              target="bench-capacity"),
    Benchmark("review-queue", "evals.bench.review_queue", ("review-queue",),
              f"{PAGE}#review-queue-paging", target="bench-review-queue"),
    Benchmark("agent-day", "evals.bench.agent_day", ("agent-day",),
              f"{PAGE}#a-scripted-agent-day", target="bench-agent-day"),
    Benchmark("identifiers", "evals.bench.identifiers", ("identifiers",),
              "docs/memory.md#identifiers", target="bench-identifiers"),
    Benchmark("locomo", "evals.bench.locomo", ("locomo",), f"{PAGE}#retrieval-on-locomo",
              target="bench-locomo", locomo=True),
    Benchmark("ablate-locomo", "evals.ablate.locomo", ("locomo-ablation",),
              f"{PAGE}#ablation", role=Role.ABLATION, locomo=True),
    Benchmark("ablate-locomo-graph", "evals.ablate.locomo_graph", ("locomo-ablation-graph",),
              "docs/memory.md#tried-and-not-kept", role=Role.ABLATION, locomo=True),
    Benchmark("ablate-locomo-recall", "evals.ablate.locomo_recall", ("locomo-ablation-recall",),
              "docs/memory.md#tried-and-not-kept", role=Role.ABLATION, smoke=None),
    Benchmark("peers", "evals.bench.peers", ("peers",), f"{PAGE}#engram-beside-its-peer",
              target="bench-peers", locomo=True),
    Benchmark("reliability", "evals.bench.reliability", ("reliability",),
              f"{PAGE}#reliability-campaign", target="bench-reliability"),
    Benchmark("probe-embedder", "evals.probe.embedder", ("embedder-probe",),
              f"{PAGE}#embedder-probes", role=Role.PROBE, smoke=None),
    Benchmark("probe-embedder-cpu", "evals.probe.embedder_cpu", ("embedder-cpu",),
              f"{PAGE}#embedder-probes", role=Role.PROBE, smoke=None),
    Benchmark("probe-small-batch", "evals.probe.small_batch", ("embedder-threads",),
              "docs/decisions/0010-latency-beside-the-peer.md", role=Role.PROBE, smoke=None),
    Benchmark("probe-uvloop", "evals.probe.uvloop", ("uvloop",),
              "docs/decisions/0010-latency-beside-the-peer.md", role=Role.PROBE, smoke=None),
    Benchmark("probe-search-statements", "evals.probe.search_statements",
              ("search-statements",), "docs/decisions/0041-a-search-reads-its-candidates-once.md",
              role=Role.PROBE, smoke=None),
    Benchmark("probe-encode-runtime", "evals.probe.encode_runtime", ("encode-runtime",),
              "docs/decisions/0042-onnx-runtime-on-the-cpu.md", role=Role.PROBE, smoke=None),
)


def by_name(name: str) -> Benchmark:
    for bench in BENCHMARKS:
        if bench.name == name:
            return bench
    raise KeyError(f"no benchmark {name!r} in evals/registry.py")


def smoke(shared: Path, only: list[str]) -> int:
    """Every smoke row at tiny sizes, artefacts in a temporary directory
    (never evals/results/): a published number whose command no longer runs
    is a defect."""
    rows = [by_name(n) for n in only] if only else [b for b in BENCHMARKS if b.smoke is not None]
    with tempfile.TemporaryDirectory(prefix="engram-smoke-") as out:
        env = {**os.environ, "ENGRAM_BENCH_RESULTS_DIR": out}
        for bench in rows:
            sys.stdout.write(f"== {bench.name}: {bench.module} {' '.join(bench.smoke or ())}\n")
            sys.stdout.flush()
            subprocess.run(bench.smoke_command(shared), env=env, check=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("smoke", help="run the smoke rows (make bench-smoke)")
    run.add_argument("--shared", type=Path, required=True,
                     help="the folder holding bench/locomo10.json (make's SHARED)")
    run.add_argument("--only", nargs="*", default=[], help="these rows only")
    args = parser.parse_args()
    if args.command == "smoke":
        return smoke(args.shared, args.only)
    for bench in BENCHMARKS:
        sys.stdout.write(f"{bench.name:22} {bench.target or '-':18} {bench.module:28} "
                         f"{','.join(bench.kinds)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
