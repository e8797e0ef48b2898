"""Contextual vectors (context_vectors.py): what the second vector embeds,
when a write keeps it, and that the store's two texts go in one embedder call."""

from __future__ import annotations

import asyncio
import uuid

import numpy as np

from engram_kit.context import CallerContext
from engram_memory.context_vectors import (
    Preceding,
    context_fields,
    context_text,
    embed_entry,
)

PRE = Preceding("ep-1", [uuid.uuid4(), uuid.uuid4()],
                ["Melanie: Hi!", "Melanie: Did you go to the museum?"])


def test_the_context_text_is_the_earlier_lines_then_the_entry():
    assert context_text(PRE.texts, "Caroline: Yes!") == (
        "Melanie: Hi!\nMelanie: Did you go to the museum?\nCaroline: Yes!")


def test_a_write_keeps_the_context_only_in_the_episode_it_was_read_from():
    vec = np.ones(3)
    kept = context_fields(PRE, vec, "ep-1")
    assert kept["context_of"] == PRE.ids[0] and kept["context_of_prior"] == PRE.ids[1]
    assert kept["context_embedding"] is vec
    one = context_fields(Preceding("ep-1", PRE.ids[:1], PRE.texts[1:]), vec, "ep-1")
    assert one["context_of_prior"] is None  # the second line of its episode
    assert context_fields(PRE, vec, "ep-2") == {}  # the session turned over meanwhile
    assert context_fields(PRE, None, "ep-1") == {}  # embedder down
    assert context_fields(None, vec, "ep-1") == {}  # first line of its episode


class FakeEmbedder:
    def __init__(self, up: bool = True) -> None:
        self.calls: list[list[str]] = []
        self.up = up

    async def embed_one(self, text: str, ctx: CallerContext, *, query: bool) -> np.ndarray:
        self.calls.append([text])
        return np.full(2, len(text), dtype=float)

    async def embed_many(self, texts: list[str], ctx: CallerContext) -> list[np.ndarray] | None:
        self.calls.append(texts)
        return [np.full(2, len(t), dtype=float) for t in texts] if self.up else None


def test_both_texts_go_in_one_embedder_call():
    fake, ctx = FakeEmbedder(), CallerContext(principal="p", namespace="n")
    own, context = asyncio.run(embed_entry(fake, ctx, "Caroline: Yes!", PRE))  # type: ignore[arg-type]
    assert fake.calls == [["Caroline: Yes!", context_text(PRE.texts, "Caroline: Yes!")]]
    assert own is not None and context is not None and context[0] > own[0]
    alone = asyncio.run(embed_entry(fake, ctx, "Caroline: Yes!", None))  # type: ignore[arg-type]
    assert alone[1] is None and fake.calls[-1] == ["Caroline: Yes!"]
    down = asyncio.run(embed_entry(FakeEmbedder(up=False), ctx, "x", PRE))  # type: ignore[arg-type]
    assert down == (None, None)
