"""The section of docs/benchmarks.md for an A/B run (evals/bench/e2e_ab.py)."""

from __future__ import annotations

from evals.report.common import Artefact, f, source, table

LABELS = {"mcp": "via MCP", "grpc_direct": "direct gRPC"}


def spread(d: dict, side: str, path: str, tool: str) -> str:
    """The lowest and highest p50 of one side's runs: how far runs of the same
    code drift on this machine, beside the ratio of their medians."""
    p50s = [run[path][tool]["p50_ms"] for run in d.get("runs", {}).get(side, [])]
    return f"{f(min(p50s))}–{f(max(p50s))}" if p50s else "n/a"


def e2e_ab(a: Artefact) -> list[str]:
    d = a.load()
    base, new, r = d["base_median"], d["new_median"], d["ratios_new_over_base"]
    rows = [[f"`{tool}` {LABELS[path]}",
             f"{f(base[path][tool]['p50_ms'])} / {f(base[path][tool]['p95_ms'])}",
             f"{f(new[path][tool]['p50_ms'])} / {f(new[path][tool]['p95_ms'])}",
             f"×{r[f'{path}_{tool}_p50_ms']} / ×{r[f'{path}_{tool}_p95_ms']}",
             f"{spread(d, 'base', path, tool)}; {spread(d, 'new', path, tool)}"]
            for path in ("mcp", "grpc_direct") for tool in ("store", "search")]
    slower = ", ".join(f"`{k}`" for k in d["slower"]) or "none"
    return ["## A commit against its base, interleaved", "",
            f"The MCP latency benchmark on base `{d['base'][:7]}` and on "
            f"`{d['new']['commit'][:7]}`, {d['pairs']} runs each on fresh stacks, base and new "
            f"alternating, {d['n']} calls per tool and path a run; medians over the runs. "
            + source(a, d), "",
            *table(["", "base p50 / p95 ms", "new p50 / p95 ms", "new / base",
                    "p50 of each run: base; new"], rows),
            f"Slower than the base by more than {round(d['tolerance'] * 100)}%: {slower}.", ""]
