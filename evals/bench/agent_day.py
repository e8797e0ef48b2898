"""A scripted working day, replayed as the clients send it (`make
bench-agent-day`): two agents, two principals, each with Claude Code's hooks
(`engram hook <event>`, a new process with the documented JSON on stdin)
and header-less MCP tool calls (the official SDK client, only the bearer
token), against the embedded stack.

Session 1 of the main agent states rules, decisions and facts and corrects
one decision. Session 2 must see them in its session-start briefing; it is
asked a fixed prompt set, each prompt naming the memory it should surface in
the prompt hook's note; it reads a fact that the other agent then changes,
and the next prompt must say so; the other agent's direct mail must reach it
and not the sender. Each session's episode must close at SessionEnd holding
exactly that session's own writes. The scenario is evals/data/agent_day.json;
the arithmetic is harness/agent_day_score.py.

Usage: .venv/bin/python -m evals.bench.agent_day [--port-offset 900]
Writes evals/results/agent-day-<UTC timestamp>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from engram_cli.hooks.inert import item
from engram_cli.hooks.recall import DEFAULT_BAR, DEFAULT_MARGIN, MAX_ITEMS, found_items, pick
from engram_cli.hooks.render import fitted_briefing_text
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from evals.harness.agent_day_score import (
    briefing_recall,
    episode_exact,
    found_in,
    items_of,
    precision_recall,
    score_prompt,
)
from evals.harness.benchlib import (
    command_line,
    git_state,
    parse_with_smoke,
    results_dir,
    shown,
    stop_stack_on_sigterm,
)
from tests.helpers import admin_fetchval, call, mcp_client
from tests.hookrun import HookRun, run_hook

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "agent_day.json"
BRIEFING_TOKENS = 800
# A second budget for the same briefing: were the misses the budget's doing?
WIDE_BUDGET = 4000
SEARCH_TOP_K = 5
# Quality, not latency (bench_hooks times the hooks): a hook that gave up on
# a loaded machine would read as a miss, so it gets time, and a hook that
# failed open anyway is counted (ENGRAM_HOOK_DEBUG).
HOOK_TIMEOUT_S = 10.0
# The relevance bars (floor, margin from the closest) the search reference
# is scored at, to choose the prompt hook's (hooks_recall.DEFAULT_BAR,
# DEFAULT_MARGIN) on this prompt set.
BARS = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]
MARGINS = [0.03, 0.05, 0.1, 0.15, 1.0]
CHANGE_STEP = "other_changes_the_read_fact"


class Agent:
    """One principal: its token, its hooks' environment and what each of its
    sessions stored (memory ids)."""

    def __init__(self, stack: Stack, name: str, namespace: str, state: Path) -> None:
        self.name, self.url = name, stack.mcp_url
        self.token = stack.principals.create(name, "agent", [namespace])
        self.env = {**os.environ, "ENGRAM_URL": stack.mcp_url, "ENGRAM_TOKEN": self.token,
                    "ENGRAM_HOOK_STATE_DIR": str(state / name),
                    "ENGRAM_HOOK_BRIEFING_TOKENS": str(BRIEFING_TOKENS),
                    "ENGRAM_HOOK_TIMEOUT_S": str(HOOK_TIMEOUT_S),
                    "ENGRAM_HOOK_RECALL_TIMEOUT_S": str(HOOK_TIMEOUT_S),
                    "ENGRAM_HOOK_DEBUG": "1"}
        self.stored: dict[str, list[str]] = {}
        self.runs: list[str] = []
        self.failed_open: list[str] = []

    async def hook(self, event: str, sid: str, **fields: Any) -> HookRun:
        run = await asyncio.to_thread(run_hook, event, sid, self.env, None, fields)
        if run.rc != 0:
            raise RuntimeError(f"{self.name} hook {event} exited {run.rc}: {run.stderr}")
        self.runs.append(event)
        if run.stderr.strip():  # ENGRAM_HOOK_DEBUG: the hook says why it did nothing
            self.failed_open.append(f"{event}: {run.stderr.strip()[:200]}")
        return run

    async def store(self, client: Any, sid: str, text: str) -> None:
        self.stored.setdefault(sid, []).append((await call(client, "memory_store",
                                                           {"text": text}))["id"])


async def session_one(ada: Agent, s1: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """States the rules, decisions and facts; corrects one; stops; ends. The
    correction's reply says what the store made of it."""
    sid = str(uuid.uuid4())
    await ada.hook("session-start", sid)
    async with mcp_client(ada.url, ada.token) as client:
        for fact in s1["facts"]:
            await call(client, "fact_set", {k: fact[k] for k in
                                            ("entity", "attribute", "value", "kind")})
        for note in s1["notes"]:
            await ada.store(client, sid, note["text"])
        fixed = next(f for f in s1["facts"] if f["id"] == s1["correction"]["id"])
        corrected = await call(client, "fact_set", {
            "entity": fixed["entity"], "attribute": fixed["attribute"], "kind": fixed["kind"],
            "value": s1["correction"]["value"], "replaces": s1["correction"]["replaces"]})
        await ada.hook("stop", sid)
        await ada.hook("session-end", sid, reason="prompt_input_exit")
    return sid, {k: corrected.get(k) for k in ("action", "lane", "conflict_id", "note")}


async def prompts(ada: Agent, sid: str, sc: dict[str, Any], chosen: list[dict[str, Any]],
                  change: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The prompt set, each through the prompt hook; the other agent changes
    the read fact where a prompt says so. The changed-fact note must be on
    the prompt right after the change."""
    needles = {**sc["should_know"], **sc["changed_fact"]}
    scored: list[dict[str, Any]] = []
    note: dict[str, Any] = {"fired": None}
    for p in chosen:
        if p.get("before") == CHANGE_STEP:
            await change()
        run = await ada.hook("prompt", sid, prompt=p["prompt"])
        lines = items_of(run.context())
        scored.append({"prompt": p["prompt"], **score_prompt(lines, p["expect"], needles),
                       "lines": lines, "hook_s": round(run.seconds, 3)})
        if p.get("before") == CHANGE_STEP:
            hits = [ln for ln in lines
                    if any(found_in([ln], n) for n in sc["changed_fact"].values())]
            note = {"fired": bool(hits), "on_prompt": p["prompt"],
                    "line": hits[0] if hits else ""}
    return scored, note


async def board_id(client: Any, status: str) -> str:
    """Join the board (this session's agent) and return the agent's id."""
    return (await call(client, "board_agents", {"action": "update",
                                                "status": status}))["agent"]["id"]


def texts(inbox: dict[str, Any]) -> list[str]:
    return [m["text"] for m in inbox["messages"]]


async def mail(ada: Agent, sid: str, mine: Any, theirs: Any, ids: dict[str, str],
               other: dict[str, Any]) -> dict[str, Any]:
    """Direct mail both ways: it wakes the recipient's Stop, is in its next
    prompt note and its inbox, and never in the sender's inbox."""
    await call(theirs, "board_message", {"action": "send", "to": ids["main"],
                                         "text": other["mail_to_main"]})
    woke = (await ada.hook("stop", sid)).output().get("decision") == "block"
    noted = other["mail_to_main"] in (await ada.hook("prompt", sid,
                                                     prompt="What next?")).context()
    await call(mine, "board_message", {"action": "send", "to": ids["other"],
                                       "text": other["reply_to_other"]})
    main_box = texts(await call(mine, "board_message", {"action": "receive"}))
    other_box = texts(await call(theirs, "board_message", {"action": "receive"}))
    return {"stop_woke_recipient": woke, "in_recipient_prompt_note": noted,
            "in_recipient_inbox": other["mail_to_main"] in main_box,
            "in_sender_inbox": other["mail_to_main"] in other_box,
            "reply_in_other_inbox": other["reply_to_other"] in other_box,
            "reply_in_main_inbox": other["reply_to_other"] in main_box}


def delivered_right(m: dict[str, Any]) -> bool:
    return (m["in_recipient_inbox"] and m["reply_in_other_inbox"]
            and not m["in_sender_inbox"] and not m["reply_in_main_inbox"])


async def briefed(ada: Agent, sid: str, sc: dict[str, Any]) -> dict[str, Any]:
    """Session 2's SessionStart context scored against what it should know;
    beside it, the same session's briefing JSON (what the budget trimmed) and,
    rendered as the hook renders it, the briefing at a wider budget."""
    context = (await ada.hook("session-start", sid)).context()
    stale = [sc["session1"]["correction"]["stale_value"]]
    out = {"token_budget": BRIEFING_TOKENS,
           **briefing_recall(context, sc["should_know"], stale), "context": context}
    async with httpx.AsyncClient(base_url=ada.url.removesuffix("/mcp"), timeout=60, headers={
            "Authorization": f"Bearer {ada.token}", "X-Engram-Session": sid}) as http:
        for budget in (BRIEFING_TOKENS, WIDE_BUDGET):
            r = await http.get("/v1/session/briefing", params={"token_budget": budget})
            r.raise_for_status()
            reply = r.json()
            rules = reply["rules_and_constraints"]
            out[f"reply_at_{budget}"] = {
                "rules_and_decisions_served": len(rules["facts"]), "of": rules["total"],
                "state_facts_served": len(reply.get("state_facts", {}).get("facts", [])),
                "episodes": len(reply["episodes"]), "truncated": reply["truncated"],
                "reply_tokens": reply["tokens"]}
    text, _ = fitted_briefing_text(reply, WIDE_BUDGET)
    wide = briefing_recall(text, sc["should_know"], stale)
    out["wide_budget"] = {"token_budget": WIDE_BUDGET, **{k: wide[k] for k in (
        "recall", "found", "expected", "missed", "stale_values_shown", "context_tokens")},
        "context": text}
    return out


async def session_two(ada: Agent, bo: Agent, sc: dict[str, Any],
                      chosen: list[dict[str, Any]]) -> dict[str, Any]:
    """The main agent's second session beside a session of the other agent."""
    s2, b1 = str(uuid.uuid4()), str(uuid.uuid4())
    await bo.hook("session-start", b1)
    out: dict[str, Any] = {"briefing": await briefed(ada, s2, sc),
                           "sessions": {"main_2": s2, "other": b1}}
    async with mcp_client(ada.url, ada.token) as mine, mcp_client(bo.url, bo.token) as theirs:
        ids = {"main": await board_id(mine, "orders work"),
               "other": await board_id(theirs, "storefront")}
        await call(mine, "fact_get", sc["session2"]["read"])
        for note in sc["session2"]["notes"]:
            await ada.store(mine, s2, note["text"])
        for note in sc["other"]["notes"]:
            await bo.store(theirs, b1, note["text"])

        async def change() -> None:
            await call(theirs, "fact_set", sc["other"]["change"])

        scored, out["changed_fact_note"] = await prompts(ada, s2, sc, chosen, change)
        out["prompt_notes"] = {**precision_recall(scored), **hook_seconds(scored),
                               "per_prompt": scored}
        out["mail"] = await mail(ada, s2, mine, theirs, ids, sc["other"])
        out["mail"]["delivered_to_the_right_agent_only"] = delivered_right(out["mail"])
        await bo.hook("session-end", b1, reason="prompt_input_exit")
        await ada.hook("session-end", s2, reason="prompt_input_exit")
    return out


async def episode_of_session(dsn: str, agent: Agent, sid: str) -> dict[str, Any]:
    stored = agent.stored.get(sid, [])
    homes = {i: await admin_fetchval(dsn, "SELECT episode::text FROM memory.entries "
                                     "WHERE id = $1", uuid.UUID(i)) for i in stored}
    first = next(iter(homes.values()), None)
    if first is None:
        return episode_exact(stored, homes, [], "", f"{agent.name}/{sid}", False)
    held = await admin_fetchval(dsn, "SELECT coalesce(array_agg(id::text), '{}') FROM "
                                "memory.entries WHERE episode = $1", first)
    session = await admin_fetchval(dsn, "SELECT session_id FROM memory.episodes "
                                   "WHERE id = $1", uuid.UUID(first))
    closed = await admin_fetchval(dsn, "SELECT ended_at IS NOT NULL FROM memory.episodes "
                                  "WHERE id = $1", uuid.UUID(first))
    return episode_exact(stored, homes, list(held), session, f"{agent.name}/{sid}", closed)


def item_lines(found: dict[str, Any]) -> list[str]:
    """A search reply as lines: each entry's text, each fact as the hooks
    write it (entity.attribute = value)."""
    return ([f"- {e['text']}" for e in found.get("entries", [])]
            + [f"- {f['entity']}.{f['attribute']} = {f['value']}"
               for f in found.get("facts", [])])


def hook_seconds(scored: list[dict[str, Any]]) -> dict[str, Any]:
    """The prompt hook's wall time per prompt (a new process each, as the
    client runs it), on a loaded machine."""
    times = sorted(s["hook_s"] for s in scored)
    return {"hook_s_on_a_loaded_machine": {
        "median": times[len(times) // 2], "max": times[-1]} if times else None}


def bar_sweep(candidates: list[tuple[dict[str, Any], list[Any]]],
              needles: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The prompt hook's pick (the closest few over the bar) at each bar, over
    the reference's candidates: the data the hook's bar was chosen on."""
    rows = []
    for bar in BARS:
        for margin in MARGINS:
            scored = [score_prompt([item(x.kind, x.author, x.text)
                                    for x in pick(found, bar, margin, set())],
                                   p["expect"], needles) for p, found in candidates]
            pr = precision_recall(scored)
            rows.append({"bar": bar, "margin": margin, **{k: pr[k] for k in (
                "surfaced", "relevant_surfaced", "precision", "found", "recall")}})
    return rows


async def search_reference(ada: Agent, sc: dict[str, Any],
                           chosen: list[dict[str, Any]]) -> dict[str, Any]:
    """What `memory_search` returns for the same prompts (top 5), from a
    session of its own: the memory the agent finds when it asks; and each
    result's cosine to the prompt, for the bar sweep."""
    needles = {**sc["should_know"], **sc["changed_fact"]}
    scored, candidates = [], []
    async with mcp_client(ada.url, ada.token, "agent-day-reference") as client:
        for p in chosen:
            found = await call(client, "memory_search", {"query": p["prompt"],
                                                         "top_k": SEARCH_TOP_K, "explain": True})
            cands = found_items(found)
            candidates.append((p, cands))
            scored.append({"prompt": p["prompt"],
                           **score_prompt(item_lines(found), p["expect"], needles),
                           "cosines": [{"line": x.text[:80], "cosine": round(x.similarity, 3),
                                        "relevant": any(found_in([x.text], needles[k])
                                                        for k in p["expect"])}
                                       for x in cands]})
    return {"top_k": SEARCH_TOP_K, **precision_recall(scored),
            "bar_sweep": {"max_items": MAX_ITEMS, "hook_bar": DEFAULT_BAR,
                          "hook_margin": DEFAULT_MARGIN,
                          "rows": bar_sweep(candidates, needles)},
            "per_prompt": scored}


async def recall_off_seconds(ada: Agent, chosen: list[dict[str, Any]]) -> dict[str, Any]:
    """The same prompts through the prompt hook with its recall turned off
    (ENGRAM_HOOK_RECALL=0), in a session of their own: what the recall adds
    to the hook's time is the difference (a loaded machine: noisy)."""
    sid, env = str(uuid.uuid4()), {**ada.env, "ENGRAM_HOOK_RECALL": "0"}
    await asyncio.to_thread(run_hook, "session-start", sid, env)
    runs = [await asyncio.to_thread(run_hook, "prompt", sid, env, None, {"prompt": p["prompt"]})
            for p in chosen]
    await asyncio.to_thread(run_hook, "session-end", sid, env, None,
                            {"reason": "prompt_input_exit"})
    return hook_seconds([{"hook_s": round(r.seconds, 3)} for r in runs])


async def day(stack: Stack, sc: dict[str, Any], chosen: list[dict[str, Any]],
              state: Path) -> dict[str, Any]:
    ada = Agent(stack, sc["agents"]["main"], sc["namespace"], state)
    bo = Agent(stack, sc["agents"]["other"], sc["namespace"], state)
    s1, correction = await session_one(ada, sc["session1"])
    out = await session_two(ada, bo, sc, chosen)
    out["correction_reply"] = correction
    dsn = stack.postgres.admin_dsn
    s2, b1 = out.pop("sessions").values()
    out["episodes"] = {"main_session_1": await episode_of_session(dsn, ada, s1),
                       "main_session_2": await episode_of_session(dsn, ada, s2),
                       "other_session": await episode_of_session(dsn, bo, b1)}
    out["search_reference"] = await search_reference(ada, sc, chosen)
    out["prompt_notes"]["recall_off"] = await recall_off_seconds(ada, chosen)
    out["hooks"] = {"timeout_s": HOOK_TIMEOUT_S, "runs": len(ada.runs) + len(bo.runs),
                    "failed_open": ada.failed_open + bo.failed_open}
    return out


def chosen_prompts(sc: dict[str, Any], smoke: bool) -> list[dict[str, Any]]:
    """Every prompt; the smoke run keeps the first two and the change step."""
    ps = sc["prompts"]
    return [p for i, p in enumerate(ps) if i < 2 or p.get("before")] if smoke else ps


def main() -> int:
    stop_stack_on_sigterm()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--port-offset", type=int, default=900)
    args = parse_with_smoke(parser, {})
    sc = json.loads(SCENARIO.read_text())
    started_at, code, load = datetime.now(UTC), git_state(), os.getloadavg()[0]
    data_dir = Path(tempfile.mkdtemp(prefix="engram-agent-day-"))
    stack = Stack(RunnerSettings(data_dir=data_dir, port_offset=args.port_offset))
    t0 = time.monotonic()
    try:
        stack.start()
        measured = asyncio.run(day(stack, sc, chosen_prompts(sc, args.smoke),
                                   data_dir / "hook-state"))
    finally:
        stack.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    result = {
        "timestamp": started_at.isoformat(timespec="seconds"), "code": code,
        "scenario": {"file": "evals/data/agent_day.json", "agents": sc["agents"],
                     "should_know": len(sc["should_know"]), "prompts": len(sc["prompts"]),
                     "smoke": args.smoke},
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "load_average_1m": {"before": round(load, 2),
                                        "after": round(os.getloadavg()[0], 2)}},
        **measured,
        # Not a latency figure: the whole run, stack start included, on a shared machine.
        "wall_s_on_a_loaded_machine": round(time.monotonic() - t0, 1),
        "command": command_line(),
    }
    out_dir = results_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"agent-day-{started_at.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    summary = {k: measured[k] for k in ("briefing", "changed_fact_note", "mail")}
    sys.stdout.write(json.dumps(summary, indent=1) + f"\nwrote {shown(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
