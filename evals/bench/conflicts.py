"""Conflict-typing eval: how well `fact_set` classifies a second fact written
after a first one, over the labelled pairs in evals/data/cortex_conflict_pairs.jsonl
(restatement, paraphrase, changed value, complementary, contradiction; seven kinds).

Starts the embedded stack, writes each pair through MCP `fact_set` (first,
then second; every pair has its own entities), and compares the second
write's `action` with the label. In the same run it scores a baseline that
knows only exact normalised restatements (same slot: equal text -> confirm,
else contest; other slot -> insert), i.e. no paraphrase check and no reading
of change wording.

Usage: .venv/bin/python -m evals.bench.conflicts [--port-offset 800]
Writes evals/results/conflicts-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.harness.benchlib import (
    command_line,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
    tool_text,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA = REPO_ROOT / "evals" / "data" / "cortex_conflict_pairs.jsonl"
RESULTS_DIR = results_dir()
OUTCOMES = ("insert", "confirm", "supersede", "contest", "park")


def load_pairs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def norm(text: str) -> str:
    text = re.sub(r"\s+", " ", text.strip().lower())
    return re.sub(r"^(the|a|an) ", "", re.sub(r"[\s.,;:!?/]+$", "", text))


def baseline(pair: dict[str, Any]) -> str:
    a, b = pair["first"], pair["second"]
    same_slot = (a["entity"].lower(), a["attribute"].lower()) == (
        b["entity"].lower(), b["attribute"].lower())
    if not same_slot:
        return "insert"
    return "confirm" if norm(a["value"]) == norm(b["value"]) else "contest"


def scores(rows: list[tuple[str, str]]) -> dict[str, Any]:
    """Per-outcome precision/recall/F1, accuracy and the confusion matrix
    (expected -> got -> count)."""
    matrix: dict[str, Counter] = defaultdict(Counter)
    for expected, got in rows:
        matrix[expected][got] += 1
    per: dict[str, Any] = {}
    for outcome in ("insert", "confirm", "supersede", "contest"):
        tp = matrix[outcome][outcome]
        predicted = sum(m[outcome] for m in matrix.values())
        actual = sum(matrix[outcome].values())
        p = tp / predicted if predicted else 0.0
        r = tp / actual if actual else 0.0
        per[outcome] = {"precision": round(p, 3), "recall": round(r, 3),
                        "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0,
                        "support": actual}
    accuracy = sum(matrix[o][o] for o in matrix) / max(len(rows), 1)
    return {"accuracy": round(accuracy, 3),
            "macro_f1": round(sum(v["f1"] for v in per.values()) / len(per), 3),
            "per_outcome": per,
            "confusion": {e: dict(matrix[e]) for e in sorted(matrix)}}


def fact_args(fact: dict[str, Any], kind: str, pid: str) -> dict[str, Any]:
    return {"entity": f"{fact['entity']}-{pid}", "attribute": fact["attribute"],
            "value": fact["value"], "kind": kind, "evidence_quote": fact["quote"],
            "source_type": "utterance", "namespace": "conflict-eval"}


async def run_pairs(stack: Stack, token: str, pairs: list[dict[str, Any]]) -> list[str]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60.0)
    got = []
    async with Client(streamable_http_client(stack.mcp_url, http_client=http)) as client:
        for pair in pairs:
            for i, fact in enumerate((pair["first"], pair["second"])):
                args = fact_args(fact, pair["kind"], pair["id"])
                if i == 1 and fact.get("replaces"):
                    args["replaces"] = True
                result = await client.call_tool("fact_set", args)
                if result.is_error:
                    raise RuntimeError(f"{pair['id']}: {tool_text(result)}")
            reply = result.structured_content or json.loads(tool_text(result))
            got.append(reply["action"])
    return got


def breakdown(pairs: list[dict[str, Any]], got: list[str], key: str) -> dict[str, Any]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for pair, action in zip(pairs, got, strict=True):
        groups[pair[key]].append(pair["expected"] == action)
    return {k: round(sum(v) / len(v), 3) for k, v in sorted(groups.items())}


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--port-offset", type=int, default=800)
    parser.add_argument("--limit", type=int, default=0, help="the first N pairs (0: all)")
    args = parse_with_smoke(parser, {"limit": 6})
    pairs = load_pairs()[:args.limit or None]
    started_at = datetime.now(UTC)
    data_dir = Path(tempfile.mkdtemp(prefix="engram-conflicts-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    try:
        stack.start()
        token = stack.principals.create("conflict-eval", "agent", ["conflict-eval"])
        got = asyncio.run(run_pairs(stack, token, pairs))
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    ours = scores([(p["expected"], g) for p, g in zip(pairs, got, strict=True)])
    base = scores([(p["expected"], baseline(p)) for p in pairs])
    misses = [{"id": p["id"], "category": p["category"], "kind": p["kind"],
               "expected": p["expected"], "got": g, "first": p["first"]["value"],
               "second": p["second"]["value"]}
              for p, g in zip(pairs, got, strict=True) if g != p["expected"]]
    result = {
        "timestamp": started_at.isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": platform.python_version()},
        "data": str(DATA.relative_to(REPO_ROOT)), "pairs": len(pairs),
        "engram": ours, "baseline_exact_only": base,
        "ratios": {"macro_f1_engram_over_baseline": round(
            ours["macro_f1"] / max(base["macro_f1"], 1e-9), 2)},
        "accuracy_by_category": breakdown(pairs, got, "category"),
        "accuracy_by_kind": breakdown(pairs, got, "kind"),
        "misses": misses,
        "command": command_line(),
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"conflicts-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(json.dumps({k: result[k] for k in ("ratios", "accuracy_by_category")},
                                indent=1))
    sys.stdout.write(f"\nengram accuracy {ours['accuracy']} macro-F1 {ours['macro_f1']} | "
                     f"baseline accuracy {base['accuracy']} macro-F1 {base['macro_f1']}\n"
                     f"wrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
