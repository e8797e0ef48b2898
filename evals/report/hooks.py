"""The hooks section of docs/benchmarks.md (report/pages.py calls it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def hooks(name: str, d: dict[str, Any], f: Callable[..., str],
          table: Callable[[list[str], list[list[str]]], list[str]]) -> list[str]:
    rows = [[f"`{event}`", f(s["p50_ms"]), f(s["p95_ms"]), f(s["max_ms"]),
             f(d["stack_down"][event]["p95_ms"]) if event in d["stack_down"] else "-"]
            for event, s in d["events"].items()]
    b, notes = d["briefing"], d["prompt_notes"]
    verdict = "meets" if d["meets_target"] else "misses"
    cmd = d.get("command", "")
    return ["## Hooks", "",
            f"`engram hook <event>` run as Claude Code runs it (a new process per run, the "
            f"hook's JSON on stdin), {d['runs_per_event']} runs per event against the embedded "
            f"stack on {d['machine']['cpu_count']} cores (1-minute load average "
            f"{d['machine']['load_average_1m']['before']} at the start); wall time including "
            f"process start. "
            f"`prompt-note` is a turn after another agent contested a fact the session read "
            f"({notes['with_change']}/{notes['n']} printed the note; "
            f"{notes['without_change_silent']}/{notes['n']} plain `prompt` runs printed "
            f"nothing). `pre-compact` calls nothing: its row is the cost of starting the "
            f"process under that load. The last column is the same hook with the stack down "
            f"(fail open). "
            f"Artefact `evals/results/{name}`" + (f"; command `{cmd}`." if cmd else "."), "",
            *table(["event", "p50 ms", "p95 ms", "max ms", "stack down p95 ms"], rows),
            f"Worst p95 {f(d['worst_p95_ms'])} ms: {verdict} the {d['target_p95_ms']} ms "
            f"target. The session-start briefing at a {b['token_budget']}-token budget: "
            f"{b['reply_tokens']} tokens as the tool's JSON reply, {b['context_tokens']} tokens "
            f"({b['context_chars']} characters) as the context handed to the agent.", ""]
