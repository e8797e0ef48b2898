"""The prompt hook's recall: one bounded memory_search for the prompt, and
the few results close enough to it to be worth the agent's context
(docs/hooks.md#recall). Standard library only: it runs on every prompt.

Closeness is the cosine similarity between the prompt and the item: for an
entry, 1 - its dense distance (the search's trace); for a fact, the score
the cortex serves, the cosine when the fact was matched by meaning. An item
found by its words alone has no cosine and is not shown: the bar is about
meaning, and a shared word is too weak a reason to spend the agent's context.

An item is shown when its cosine clears a floor (the prompt is about
something stored at all) and is within a margin of the closest result (it is
one of the clear answers, not the tail that a top-k search always returns)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engram_cli.hooks.command import Hook

# Chosen on the agent-day prompt set (docs/hooks.md#recall has the numbers).
DEFAULT_BAR = 0.35
DEFAULT_MARGIN = 0.05
DEFAULT_TIMEOUT_S = 1.0
TOP_K = 5
MAX_ITEMS = 3
# A prompt shorter than this says too little to search for ("ok", "go on").
MIN_WORDS = 3
MAX_QUERY_CHARS = 1000
# Items the hook remembers having shown in a session (its state file).
REMEMBERED = 200


@dataclass(frozen=True)
class Found:
    key: str         # e:<entry id> or f:<fact id>: what "already shown" remembers
    kind: str        # memory, rule, decision, state, ...
    author: str
    text: str
    similarity: float


def enabled() -> bool:
    return os.environ.get("ENGRAM_HOOK_RECALL", "1").strip().lower() not in ("0", "off",
                                                                                "false", "no")


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


def worth_searching(prompt: object) -> bool:
    """Not a slash command, and at least a few words."""
    if not isinstance(prompt, str):
        return False
    text = prompt.strip()
    return not text.startswith("/") and len(text.split()) >= MIN_WORDS


def _entry(e: dict[str, Any]) -> Found | None:
    distance = (e.get("trace") or {}).get("dense_distance")
    if not isinstance(distance, (int, float)) or not e.get("id"):
        return None
    text = str(e.get("text", "")) + (" (contested)" if e.get("label") == "contested" else "")
    return Found(f"e:{e['id']}", "memory", str(e.get("writer") or ""), text,
                 1.0 - float(distance))


def _fact(f: dict[str, Any]) -> Found | None:
    score = f.get("score")
    if not isinstance(score, (int, float)) or not f.get("id"):
        return None
    text = f"{f.get('entity', '')}.{f.get('attribute', '')} = {f.get('value', '')}" + (
        " (contested)" if f.get("conflict_id") else "")
    return Found(f"f:{f['id']}", str(f.get("kind") or "fact").lower(),
                 str(f.get("writer") or ""), text, float(score))


def found_items(reply: Any) -> list[Found]:
    """Every entry and fact of a memory_search reply (explain on) that has
    a cosine, closest first."""
    if not isinstance(reply, dict):
        return []
    found = [_entry(e) for e in reply.get("entries", []) if isinstance(e, dict)]
    found += [_fact(f) for f in reply.get("facts", []) if isinstance(f, dict)]
    return sorted((x for x in found if x is not None), key=lambda x: -x.similarity)


def pick(found: list[Found], bar: float, margin: float, shown: set[str]) -> list[Found]:
    """The closest few over the bar and within `margin` of the closest of
    all (`found` is closest first), none shown before in this session."""
    if not found:
        return []
    near = found[0].similarity - margin
    return [x for x in found if x.similarity >= max(bar, near)
            and x.key not in shown][:MAX_ITEMS]


def recall(hook: Hook) -> list[Found]:
    """Search for the prompt within the deadline; the items to show, which
    the session's state then remembers. [] when off, trivial, slow or failed."""
    prompt = hook.input.get("prompt")
    if not enabled() or not worth_searching(prompt):
        return []
    assert isinstance(prompt, str)
    reply = hook.client.get("/v1/memories/search", {
        "query": prompt.strip()[:MAX_QUERY_CHARS], "top_k": TOP_K, "explain": "true",
        "verbose": "true"},
        timeout_s=_env_float("ENGRAM_HOOK_RECALL_TIMEOUT_S", DEFAULT_TIMEOUT_S))
    state = hook.load_state()
    shown = [str(k) for k in state.get("shown", []) if isinstance(k, str)]
    items = pick(found_items(reply), _env_float("ENGRAM_HOOK_RECALL_BAR", DEFAULT_BAR),
                 _env_float("ENGRAM_HOOK_RECALL_MARGIN", DEFAULT_MARGIN), set(shown))
    if items:
        hook.save_state(shown=(shown + [x.key for x in items])[-REMEMBERED:])
    return items
