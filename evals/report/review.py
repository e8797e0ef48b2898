"""The review queue section of docs/benchmarks.md (report/pages.py calls it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def review_queue(name: str, d: dict[str, Any], f: Callable[..., str],
                 table: Callable[[list[str], list[list[str]]], list[str]]) -> list[str]:
    rows = [[page, f(d["mcp"][page]["p50_ms"]), f(d["mcp"][page]["p95_ms"]),
             f(d["console_http"][page]["p50_ms"]), f(d["console_http"][page]["p95_ms"])]
            for page in ("first", "middle", "last")]
    s = d["seeding"]
    cmd = d.get("command", "")
    return ["## Review queue paging", "",
            f"`review_list` over {d['items']} open conflicts, {d['page_size']} a page "
            f"({d['pages']} pages), on {d['machine']['cpu_count']} cores: each page fetched "
            f"{d['repeats']} times through MCP and through the console's review page "
            f"(signed in, HTTP). One full cursor walk listed every item exactly once in "
            f"{f(d['full_walk_s'], 2)} s. Seeding: {s['through_mcp']} conflicts through MCP "
            f"`fact_set` at {f(s['mcp_s_per_conflict'], 3)} s each (so about "
            f"{f(s['mcp_estimate_for_all_s'] / 60, 0)} min for all), the other {s['bulk']} "
            f"bulk-inserted in {f(s['bulk_s'], 2)} s. Artefact `evals/results/{name}`"
            + (f"; command `{cmd}`." if cmd else "."), "",
            *table(["page", "MCP p50 ms", "MCP p95 ms", "console p50 ms", "console p95 ms"],
                   rows)]
