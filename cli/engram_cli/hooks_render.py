"""The text hooks hand the agent: the briefing as a short markdown block and
the per-turn note of what changed. Plain string work, no imports beyond the
standard library."""

from __future__ import annotations

from typing import Any

HEADER = "engram memory briefing (long-term memory for this project):"


def _fact(f: dict[str, Any]) -> str:
    value = f"{f.get('entity', '')}.{f.get('attribute', '')} = {f.get('value', '')}"
    kind = f.get("kind", "")
    return f"- [{kind}] {value}" + (" (contested)" if f.get("conflict_id") else "")


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"## {title}", *lines] if lines else []


def briefing_text(b: dict[str, Any]) -> str:
    rules = [_fact(f) for f in b.get("rules_and_constraints", {}).get("facts", [])]
    conflicts = [
        f"- {c['fact_a'].get('entity')}.{c['fact_a'].get('attribute')}: "
        f"{c['fact_a'].get('value')!r} vs {c['fact_b'].get('value')!r} (conflict {c['id']})"
        for c in b.get("open_conflicts", {}).get("conflicts", [])]
    lessons = [f"- ({x.get('polarity', '')}) {x.get('text', '')}"
               for x in b.get("lessons", {}).get("lessons", [])]
    mail = [f"- from {m.get('from')}: {m.get('text')}"
            for m in b.get("board_mail", {}).get("messages", [])]
    episodes = []
    for e in b.get("episodes", []):
        latest = "; ".join(e.get("latest", [])[:2])
        episodes.append(f"- {e.get('started', '')} {e.get('title', '')} "
                        f"({e.get('memories', 0)} memories){': ' + latest if latest else ''}")
    lines = [*_section("Rules, decisions and preferences", rules),
             *_section("Open conflicts", conflicts), *_section("Lessons", lessons),
             *_section("Unread board mail", mail), *_section("Recent episodes", episodes)]
    if not lines:
        return ""
    return "\n".join([HEADER, *lines])


def changes_text(c: dict[str, Any]) -> str:
    """The note for the next turn; empty when nothing changed."""
    lines = []
    for f in c.get("facts", []):
        slot = f"{f.get('entity')}.{f.get('attribute')}"
        was = f.get("value")
        if f.get("change") == "contested":
            lines.append(f"- {slot} = {was!r}, which you read, is now contested by "
                         f"{f.get('by')} ({f.get('new_value')!r}); conflict "
                         f"{f.get('conflict_id')}")
        elif f.get("change") == "superseded":
            lines.append(f"- {slot} = {was!r}, which you read, was superseded by "
                         f"{f.get('new_value')!r} ({f.get('by')})")
        else:
            lines.append(f"- {slot} = {was!r}, which you read, was retired")
    told = {f.get("conflict_id") for f in c.get("facts", []) if f.get("conflict_id")}
    opened = int(c.get("conflicts_opened") or 0) - len(told)
    if opened > 0:
        lines.append(f"- {opened} {'other ' if told else ''}fact conflict(s) opened since "
                     "your last turn (conflict_list shows them)")
    for m in c.get("mail", []):
        lines.append(f"- new board mail from {m.get('from')}: {m.get('text')}")
    if not lines:
        return ""
    return "\n".join(["engram: changed since your last turn:", *lines])
