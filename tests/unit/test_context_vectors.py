"""Contextual vectors (context_vectors.py): what the second vector embeds,
and when a write names the lines it is made of (the vector itself is filled
after the write, by the re-embed sweep's context queue)."""

from __future__ import annotations

import uuid

from engram_memory.context_vectors import Preceding, context_fields, context_of_row, context_text

PRE = Preceding("ep-1", [uuid.uuid4(), uuid.uuid4()],
                ["Melanie: Hi!", "Melanie: Did you go to the museum?"])


def test_the_context_text_is_the_earlier_lines_then_the_entry():
    assert context_text(PRE.texts, "Caroline: Yes!") == (
        "Melanie: Hi!\nMelanie: Did you go to the museum?\nCaroline: Yes!")


def test_a_queued_row_rebuilds_the_same_text_from_its_references():
    # context_of is the line just before, context_of_prior the one before it
    assert context_of_row("Caroline: Yes!", PRE.texts[1], PRE.texts[0]) == context_text(
        PRE.texts, "Caroline: Yes!")
    assert context_of_row("Caroline: Yes!", PRE.texts[1], None) == (
        "Melanie: Did you go to the museum?\nCaroline: Yes!")


def test_a_write_names_its_lines_only_in_the_episode_it_was_read_from():
    kept = context_fields(PRE, "ep-1")
    assert kept == {"context_of": PRE.ids[0], "context_of_prior": PRE.ids[1]}
    one = context_fields(Preceding("ep-1", PRE.ids[:1], PRE.texts[1:]), "ep-1")
    assert one["context_of_prior"] is None  # the second line of its episode
    assert context_fields(PRE, "ep-2") == {}  # the session turned over meanwhile
    assert context_fields(None, "ep-1") == {}  # first line of its episode
