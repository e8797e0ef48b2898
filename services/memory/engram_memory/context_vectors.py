"""Contextual vectors (migration 0020): a second vector per entry, of the
(up to) two entries written just before it in its episode followed by the
entry itself. A reply ("Yes! Last Saturday.") carries little meaning alone;
with the lines it answers it is found by a question about them. The dense
channel ranks a row by a blend of its two similarities (repo.dense_ranked).
A write encodes the entry alone and names the lines before it; the context
vector is encoded after the write is acknowledged (migration 0021: the
re-embed sweep's context queue), so its longer text stays off the write's
critical path and the writes queued meanwhile share one batch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

import asyncpg

from . import repo_episodes

LINES_BEFORE = 2  # evals/ablate/locomo_recall.py: two lines beat one on both halves


@dataclass(frozen=True)
class Preceding:
    episode: str
    ids: list[UUID]  # the line just before first
    texts: list[str]  # oldest first, as they were said


def context_text(previous: list[str], text: str) -> str:
    """What the context vector embeds: the earlier lines, then the entry."""
    return "\n".join([*previous, text])


async def preceding_entries(conn: asyncpg.Connection, episode: str | None) -> Preceding | None:
    """The latest entries of the episode the write lands in (the store has
    resolved it); None outside an episode or at its start. Read before the
    write's transaction so the embedder call stays outside it."""
    if not episode:
        return None
    rows = await repo_episodes.episode_tail(conn, episode, LINES_BEFORE)
    if not rows:
        return None
    return Preceding(episode, [r.id for r in rows], [r.text for r in reversed(rows)])


def context_fields(preceding: Preceding | None, episode: str | None) -> dict[str, Any]:
    """NewEntry's context references (its vector is queued); none when the
    write landed in another episode than the one read before it (a session
    turned over meanwhile)."""
    if preceding is None or preceding.episode != episode:
        return {}
    prior = preceding.ids[1] if len(preceding.ids) > 1 else None
    return {"context_of": preceding.ids[0], "context_of_prior": prior}


def context_of_row(text: str, before: str, prior: str | None) -> str:
    """The context text of a queued row: its lines oldest first, then it."""
    return context_text([prior, before] if prior is not None else [before], text)
