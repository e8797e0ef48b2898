"""The review queue's cursors: what next_cursor encodes round-trips, and
anything else is a typed invalid_argument naming the field."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest

from engram_cortex.repo_review import like_pattern
from engram_cortex.review_queue import decode_cursor, encode_cursor
from engram_gateway.tools.knowledge import _review_cursor
from engram_kit.errors import InvalidArgument


def test_a_next_cursor_round_trips() -> None:
    at = datetime(2026, 12, 2, 1, 2, 3, 456789, tzinfo=UTC)
    key = "contender:00000000-0000-0000-0000-000000000001"
    assert decode_cursor(encode_cursor(at, key)) == (at, key)
    assert decode_cursor("") is None


@pytest.mark.parametrize("bad", [
    "not a cursor", "%%%", base64.urlsafe_b64encode(b"soon|x").decode(),
    base64.urlsafe_b64encode(b"2026-01-01T00:00:00|x").decode(),  # no zone
    base64.urlsafe_b64encode(b"2026-01-01T00:00:00+00:00|").decode(),
    base64.urlsafe_b64encode(b"\xff\xfe").decode(), "A" * 400])
def test_anything_else_is_refused_naming_the_cursor(bad: str) -> None:
    with pytest.raises(InvalidArgument) as e:
        decode_cursor(bad)
    assert e.value.field == "cursor"


def test_the_text_filter_takes_wildcards_literally() -> None:
    assert like_pattern("") == ""
    assert like_pattern("a%b_c\\") == "%a\\%b\\_c\\\\%"


@pytest.mark.parametrize(("cursor", "kind", "phase"), [
    ("", "", ("c", "")), ("", "graph_link", ("p", "0")), ("cABC", "", ("c", "ABC")),
    ("cABC", "conflict", ("c", "ABC")), ("p5", "", ("p", "5")), ("p5", "merge_fact", ("p", "5"))])
def test_the_gateway_cursor_phases(cursor: str, kind: str, phase: tuple[str, str]) -> None:
    assert _review_cursor(cursor, kind) == phase


@pytest.mark.parametrize(("cursor", "kind"), [
    ("x1", ""), ("c", ""), ("p", ""), ("p-1", ""), ("p5", "conflict"), ("cABC", "graph_link")])
def test_the_gateway_refuses_foreign_cursors(cursor: str, kind: str) -> None:
    with pytest.raises(InvalidArgument) as e:
        _review_cursor(cursor, kind)
    assert e.value.field == "cursor"
