"""The text hooks hand the agent: the briefing and the per-turn note of what
changed. Our own headings stand outside the fences; everything another
principal wrote (rules, lessons, mail, episode text, changed values) is one
inert line inside a fence, labelled with its kind and author (inert.py).
Standard library only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram_cli.hooks.inert import PREAMBLE, fence, inert, item

if TYPE_CHECKING:
    from engram_cli.hooks.recall import Found

HEADER = "engram memory briefing (long-term memory for this project)."
CHANGES = "engram: changed since your last turn."
RECALL = "engram: from memory, closest to this prompt first."
# When the rendered briefing is over its budget, items go from the end of
# these lists, in this order; the first episode and the first rule stay.
FIT_ORDER = (("episodes", None, 1), ("state_facts", "facts", 0), ("lessons", "lessons", 0),
             ("board_mail", "messages", 0), ("open_conflicts", "conflicts", 0),
             ("rules_and_constraints", "facts", 1))


def _slot(f: dict[str, Any]) -> str:
    return f"{f.get('entity', '')}.{f.get('attribute', '')}"


def _fact(f: dict[str, Any]) -> str:
    kind = str(f.get("kind", "") or "fact").lower()
    text = f"{_slot(f)} = {f.get('value', '')}" + (
        " (contested)" if f.get("conflict_id") else "")
    return item(kind, f.get("writer", ""), text)


def _conflict(c: dict[str, Any]) -> str:
    a, b = c.get("fact_a", {}), c.get("fact_b", {})
    return (f"- conflict {inert(c.get('id', ''))} on {inert(_slot(a))}: "
            f"{inert(repr(a.get('value')))} by {inert(a.get('writer') or 'unknown')} vs "
            f"{inert(repr(b.get('value')))} by {inert(b.get('writer') or 'unknown')}")


def _lesson(x: dict[str, Any]) -> str:
    authors = ", ".join(x.get("recorded_by") or []) or "unknown"
    return item(f"lesson ({x.get('polarity', '')})", authors, x.get("text", ""))


def _mail(m: dict[str, Any]) -> str:
    author = m.get("from_principal") or "unknown"
    if m.get("from") and m.get("from") != author:
        author = f"{author} (agent {m['from']})"
    return item("board mail", author, m.get("text", ""))


def _episode(e: dict[str, Any]) -> str:
    latest = "; ".join(e.get("latest", []))
    text = (f"{e.get('started', '')} {e.get('title', '')} ({e.get('memories', 0)} memories)"
            + (f": {latest}" if latest else ""))
    return item("episode", e.get("by", ""), text)


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"## {title}", *fence(lines)] if lines else []


def briefing_text(b: dict[str, Any]) -> str:
    sections = [
        ("Rules, decisions and preferences",
         [_fact(f) for f in b.get("rules_and_constraints", {}).get("facts", [])]),
        ("Current facts", [_fact(f) for f in b.get("state_facts", {}).get("facts", [])]),
        ("Open conflicts", [_conflict(c) for c in b.get("open_conflicts", {})
                            .get("conflicts", [])]),
        ("Lessons", [_lesson(x) for x in b.get("lessons", {}).get("lessons", [])]),
        ("Unread board mail", [_mail(m) for m in b.get("board_mail", {})
                               .get("messages", [])]),
        ("Recent episodes", [_episode(e) for e in b.get("episodes", [])])]
    lines = [line for title, items in sections for line in _section(title, items)]
    if not lines:
        return ""
    return "\n".join([HEADER, PREAMBLE, *lines])


def tokens(text: str) -> int:
    """About four characters per token: the gateway's estimate (shaping.approx_tokens)."""
    return len(text) // 4 + 1 if text else 0


def fitted_briefing_text(b: dict[str, Any], budget: int) -> tuple[str, bool]:
    """The briefing as rendered, within `budget` tokens of the text itself
    (not of the JSON it came as); True when items were dropped to fit."""
    text, trimmed = briefing_text(b), False
    for section, key, keep in FIT_ORDER:
        items = b.get(section) if key is None else (b.get(section) or {}).get(key)
        while isinstance(items, list) and len(items) > keep and tokens(text) > budget:
            items.pop()
            text, trimmed = briefing_text(b), True
    return text, trimmed


def recall_text(found: list[Found]) -> str:
    """The prompt hook's recall: each item fenced, with its kind and author."""
    if not found:
        return ""
    return "\n".join([RECALL, PREAMBLE, *fence([item(x.kind, x.author, x.text)
                                                 for x in found])])


def _change(f: dict[str, Any]) -> str:
    slot, was, by = _slot(f), repr(f.get("value")), f.get("by") or "unknown"
    if f.get("change") == "contested":
        return item("contested fact", by, f"{slot} = {was}, which you read, is now contested "
                    f"by {f.get('new_value')!r}; conflict {f.get('conflict_id')}")
    if f.get("change") == "superseded":
        return item("superseded fact", by, f"{slot} = {was}, which you read, was superseded "
                    f"by {f.get('new_value')!r}")
    return item("retired fact", by, f"{slot} = {was}, which you read, was retired")


def changes_text(c: dict[str, Any]) -> str:
    """The note for the next turn; empty when nothing changed."""
    lines = [_change(f) for f in c.get("facts", [])]
    lines += [_mail(m) for m in c.get("mail", [])]
    told = {f.get("conflict_id") for f in c.get("facts", []) if f.get("conflict_id")}
    opened = int(c.get("conflicts_opened") or 0) - len(told)
    note = ([f"- {opened} {'other ' if told else ''}fact conflict(s) opened since your last "
             "turn (conflict_list shows them)"] if opened > 0 else [])
    if not lines and not note:
        return ""
    return "\n".join([CHANGES, *note, *([PREAMBLE, *fence(lines)] if lines else [])])
