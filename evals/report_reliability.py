"""The reliability campaign's section of docs/benchmarks.md, from the newest
reliability artefact (`make bench-reliability`)."""

from __future__ import annotations

from typing import Any

SKIP = {"holds", "must_hold", "seconds", "output_tail", "summary", "examples", "latency",
        "rss_mb", "queues", "load", "read_back", "recoveries", "failures",
        "calls_during_outage", "write_errors"}


def _evidence(scenario: dict[str, Any]) -> str:
    """The scenario's scalar findings, as recorded (nested detail stays in the artefact)."""
    parts = [f"{k}: {v}" for k, v in scenario.items()
             if k not in SKIP and not isinstance(v, dict | list)]
    for k in ("failed_operations",):
        if scenario.get(k):
            parts.append(f"{k}: {', '.join(map(str, scenario[k]))}")
    outcomes = (scenario.get("load") or {}).get("outcomes")
    if outcomes:
        parts.append("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    return "; ".join(parts).replace("|", "/")


def reliability(name: str, d: dict[str, Any], fmt: Any, table: Any) -> list[str]:
    rows = [[f"`{n}`", "yes" if s.get("holds") else "**no**", s.get("must_hold", ""),
             _evidence(s), fmt(s.get("seconds", 0.0))] for n, s in d["scenarios"].items()]
    out = ["## Reliability campaign", "",
           f"Faults injected into a real `engram up` under a mixed MCP and REST load "
           f"({d.get('mode', 'full')} sizes; 1-minute load average "
           f"{d['machine'].get('loadavg_1m_at_start')} at the start). All hold: "
           f"**{'yes' if d.get('all_hold') else 'no'}**. What each scenario does: "
           f"[reliability.md](reliability.md). Artefact `evals/results/{name}`; command "
           f"`{d.get('command', '')}`.", "",
           *table(["scenario", "holds", "must hold", "evidence", "s"], rows)]
    latency = (d["scenarios"].get("concurrency") or {}).get("latency") or {}
    if latency:
        out += ["Per tool under 50 concurrent agents (ms):", "",
                *table(["tool", "n", "p50", "p95", "p99"],
                       [[t, str(v["n"]), fmt(v["p50_ms"]), fmt(v["p95_ms"]), fmt(v["p99_ms"])]
                        for t, v in sorted(latency.items())])]
    peer = d.get("peer") or {}
    if peer:
        out += [f"Peer `{peer.get('name')}`: {peer.get('status')}"
                + (f" ({peer['reason']})" if peer.get("reason") else "") + ".", ""]
    return out
