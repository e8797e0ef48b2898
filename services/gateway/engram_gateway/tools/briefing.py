"""The session-start briefing: one reply gathered from the services that hold
each section, within the caller's token budget.

- cortex: live rules, decisions and preferences; current STATE facts;
  open conflicts; lessons;
- coordination: this agent's unread board mail (read, not acknowledged);
- memory: a recap of recent episodes, in what is left of the budget.

A section whose service fails is listed under `unavailable` with the reason,
and the other sections still arrive."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from engram.v1 import coordination_pb2, cortex_pb2, memory_pb2
from engram_kit.context import CallerContext
from engram_kit.errors import DomainError

from ..clients import Calls
from ..rpcs import COORDINATION, CORTEX, MEMORY
from ..shaping.board import inbox_reply
from ..shaping.common import approx_tokens, briefing_reply
from ..shaping.facts import briefing_conflict, briefing_fact
from ..shaping.knowledge import briefing_lesson

RULES, STATE, LESSONS, CONFLICTS, MAIL = 10, 10, 5, 5, 5
# The cortex and board sections take at most this share of the budget; the
# episode recap gets the rest (and always at least one episode).
SECTIONS_SHARE = 0.5
# When the sections are over their share, items go from the end of these
# lists, in this order.
TRIM_ORDER = ("state_facts", "lessons", "board_mail", "open_conflicts",
              "rules_and_constraints")
ITEMS = {"rules_and_constraints": "facts", "state_facts": "facts",
         "open_conflicts": "conflicts",
         "lessons": "lessons", "board_mail": "messages"}


async def _section(service: str, call: Awaitable[Any]) -> tuple[Any, str]:
    try:
        return await call, ""
    except DomainError as exc:
        return None, f"{service}: {exc.message}"


async def _gather(backends: Calls, caller: CallerContext) -> tuple[dict, dict]:
    (knowledge, k_err), (conflicts, c_err), (mail, m_err) = await asyncio.gather(
        _section("cortex", backends.call(CORTEX.KnowledgeBriefing, caller,
                                         cortex_pb2.KnowledgeBriefingRequest(
                                             rules=RULES, lessons=LESSONS,
                                             state=STATE))),
        _section("cortex", backends.call(CORTEX.ListConflicts, caller,
                                         cortex_pb2.ListConflictsRequest(limit=CONFLICTS))),
        _section("coordination", backends.call(
            COORDINATION.ReceiveMessages, caller,
            coordination_pb2.ReceiveMessagesRequest(limit=MAIL))))
    sections: dict[str, Any] = {}
    unavailable: dict[str, str] = {}
    if knowledge is None:
        for name in ("rules_and_constraints", "state_facts", "lessons"):
            unavailable[name] = k_err
    else:
        sections["rules_and_constraints"] = {
            "facts": [briefing_fact(f) for f in knowledge.rules], "total": knowledge.rules_total}
        sections["state_facts"] = {
            "facts": [briefing_fact(f) for f in knowledge.state], "total": knowledge.state_total}
        sections["lessons"] = {"lessons": [briefing_lesson(x) for x in knowledge.lessons],
                               "total": knowledge.lessons_total}
    if conflicts is None:
        unavailable["open_conflicts"] = c_err
    else:
        sections["open_conflicts"] = {
            "conflicts": [briefing_conflict(c) for c in conflicts.conflicts],
            "more": "conflict_list shows them all" if len(conflicts.conflicts) == CONFLICTS
            else None}
    if mail is None:
        unavailable["board_mail"] = m_err
    else:
        inbox = inbox_reply(mail)
        sections["board_mail"] = {k: inbox[k] for k in ("messages", "pending", "origin")}
    return sections, unavailable


def _trim(sections: dict[str, Any], budget: int) -> bool:
    """Drop items from the end of the least important lists until the
    sections fit `budget` tokens, keeping the first rule whatever the budget
    (as the recap keeps one episode); True when anything was dropped."""
    trimmed = False
    for name in TRIM_ORDER:
        items = sections.get(name, {}).get(ITEMS[name], [])
        keep = 1 if name == "rules_and_constraints" else 0
        while len(items) > keep and approx_tokens(sections) > budget:
            items.pop()
            trimmed = True
    return trimmed


async def build_briefing(backends: Calls, caller: CallerContext,
                         token_budget: int) -> dict[str, Any]:
    sections, unavailable = await _gather(backends, caller)
    trimmed = _trim(sections, int(token_budget * SECTIONS_SHARE))
    left = max(token_budget - approx_tokens(sections), 1)
    episodes = briefing_reply(await backends.call(
        MEMORY.Briefing, caller, memory_pb2.BriefingRequest(token_budget=left)))
    reply: dict[str, Any] = {**sections, "episodes": episodes["episodes"],
                             "truncated": trimmed or episodes["truncated"],
                             "unavailable": unavailable}
    reply["tokens"] = approx_tokens(reply)
    return reply
