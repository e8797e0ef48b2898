"""The arithmetic of `make bench-agent-day` (bench/agent_day.py): whether a
scenario item is in a text, the briefing's recall, the prompt notes'
precision and recall, and an episode's exactness. No stack, no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Needles = dict[str, list[str]]


def items_of(text: str) -> list[str]:
    """The items a hook's context lists: its `- ` lines (each peer-written
    item is one such line inside a fence; our own notes are too)."""
    return [ln for ln in text.split("\n") if ln.startswith("- ")]


def matches(line: str, needles: list[str]) -> bool:
    low = line.lower()
    return all(n.lower() in low for n in needles)


def found_in(lines: list[str], needles: list[str]) -> bool:
    """An item is found when all its needles occur in one line."""
    return any(matches(ln, needles) for ln in lines)


def briefing_recall(context: str, should_know: Needles, stale: list[str]) -> dict[str, Any]:
    """What session 2 should know, found in its session-start context; the
    corrected values it should no longer be told (anywhere in the text)."""
    lines = context.split("\n")
    hits = {key: found_in(lines, needles) for key, needles in should_know.items()}
    return {"recall": ratio(sum(hits.values()), len(hits)), "found": sum(hits.values()),
            "expected": len(hits), "missed": sorted(k for k, hit in hits.items() if not hit),
            "stale_values_shown": sorted(v for v in stale if v.lower() in context.lower()),
            "context_chars": len(context), "context_tokens": tokens(context)}


def tokens(text: str) -> int:
    """About four characters per token: the estimate the gateway budgets the
    briefing with (engram_gateway.shaping.common.approx_tokens), so the two compare."""
    return len(text) // 4 + 1 if text else 0


def ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def score_prompt(lines: list[str], expect: list[str], needles: Needles) -> dict[str, Any]:
    """One prompt: which expected items its surfaced lines hold, and how many
    of those lines are about an expected item."""
    relevant = [ln for ln in lines if any(matches(ln, needles[k]) for k in expect)]
    found = [k for k in expect if found_in(lines, needles[k])]
    return {"surfaced": len(lines), "relevant_surfaced": len(relevant),
            "expected": len(expect), "found": found,
            "missed": [k for k in expect if k not in found]}


def precision_recall(scored: list[dict[str, Any]]) -> dict[str, Any]:
    """Micro-averaged over the prompt set: precision over every line surfaced
    (None when nothing was surfaced), recall over every expected item."""
    surfaced = sum(s["surfaced"] for s in scored)
    relevant = sum(s["relevant_surfaced"] for s in scored)
    expected = sum(s["expected"] for s in scored)
    found = sum(len(s["found"]) for s in scored)
    return {"prompts": len(scored), "surfaced": surfaced, "relevant_surfaced": relevant,
            "precision": ratio(relevant, surfaced), "expected": expected, "found": found,
            "recall": ratio(found, expected),
            "silent_prompts": sum(1 for s in scored if not s["surfaced"])}


def episode_exact(stored: list[str], episodes: Mapping[str, str | None],
                  held: list[str], session: str, expected_session: str,
                  closed: bool) -> dict[str, Any]:
    """A session's writes against its episode: all in one episode, that
    episode the session's own, closed, and holding nothing else."""
    homes = set(episodes.values())
    foreign = sorted(set(held) - set(stored))
    missing = sorted(set(stored) - set(held))
    one = len(homes) == 1 and None not in homes
    return {"writes": len(stored), "episodes_written": len(homes), "held": len(held),
            "foreign": len(foreign), "missing": len(missing), "session": session,
            "own_session": session == expected_session, "closed": closed,
            "exact": one and not foreign and not missing and session == expected_session
            and closed}
