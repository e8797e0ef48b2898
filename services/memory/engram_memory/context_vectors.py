"""Contextual vectors (migration 0020): a second vector per entry, of the
entry written just before it in its episode followed by the entry itself.
A reply ("Yes! Last Saturday.") carries little meaning alone; with the line
it answers it is found by a question about either. The dense channel ranks
a row by the nearer of its two vectors (repo.dense_ranked). Both texts go to
the embedder in one call, so a write costs one round trip as before, with a
second text to encode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

import asyncpg
import numpy as np

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.embedder_client import EmbedderClient

from . import repo, repo_episodes


@dataclass(frozen=True)
class Preceding:
    episode: str
    id: UUID
    text: str


def context_text(previous: str, text: str) -> str:
    """What the context vector embeds: the earlier line, then the entry."""
    return f"{previous}\n{text}"


async def preceding_entry(pool: asyncpg.Pool, ctx: CallerContext,
                          episode: str) -> Preceding | None:
    """The latest entry of the episode the write will land in (the one named,
    else the session's innermost open one); None outside an episode or at
    its start. Read before the write's transaction so the embedder call
    stays outside it."""
    async with tenant_tx(pool, ctx.require_namespace()) as conn:
        if not episode and ctx.session_id:
            open_ = await repo_episodes.innermost_open(conn, ctx.session_id)
            episode = str(open_["id"]) if open_ is not None else ""
        if not episode:
            return None
        row = await repo.episode_tail(conn, episode)
    return Preceding(episode, row["id"], row["text"]) if row is not None else None


async def embed_entry(embedder: EmbedderClient, ctx: CallerContext, text: str,
                      preceding: Preceding | None
                      ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The entry's own vector and its context vector (None without a
    preceding entry, or with the embedder down)."""
    if preceding is None:
        return await embedder.embed_one(text, ctx, query=False), None
    vectors = await embedder.embed_many([text, context_text(preceding.text, text)], ctx)
    return (vectors[0], vectors[1]) if vectors is not None else (None, None)


def context_fields(preceding: Preceding | None, vector: np.ndarray | None,
                   episode: str | None) -> dict[str, Any]:
    """NewEntry's context columns; none when the write landed in another
    episode than the one read before it (a session turned over meanwhile)."""
    if preceding is None or vector is None or preceding.episode != episode:
        return {}
    return {"context_embedding": vector, "context_of": preceding.id}
