"""The lexical channel's identifier tokens (engram_memory/identifiers.py and
the SQL of migration 0023, which must spell the same pattern)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engram_memory import identifiers
from engram_memory.identifiers import MAX_CHARS, PATTERN, identifier_tokens

MIGRATION = (Path(identifiers.__file__).parent / "migrations"
             / "0023_identifier_lexemes.sql")


@pytest.mark.parametrize(("text", "token"), [
    ("the gateway is api-v2.internal:8443 now", "api-v2.internal:8443"),
    ("edit /etc/nginx/conf.d/app.conf and reload", "etc/nginx/conf.d/app.conf"),
    ("we shipped v1.2.3-rc1 on Monday", "v1.2.3-rc1"),
    ("the column user_id is indexed", "user_id"),
    ("Foo::bar() throws on empty input", "foo::bar"),
    ("request 550e8400-e29b-41d4-a716-446655440000 failed",
     "550e8400-e29b-41d4-a716-446655440000"),
    ("clients see ERR_CONN_RESET under load", "err_conn_reset"),
    ("mail ops@example.com", "ops@example.com"),
    ("see issue #42 and PR owner/repo#17", "owner/repo#17"),
    ("build with gcc-13 and c++20", "gcc-13"),
    ("~/.config/engram/config.toml", "config/engram/config.toml"),
])
def test_an_identifier_is_one_token_whole(text: str, token: str):
    assert token in identifier_tokens(text)


@pytest.mark.parametrize("text", [
    "I went hiking on Sunday.",  # a full stop ends a sentence, it joins nothing
    "Hey! Good to see you, how are you?",
    "It's fine; really.",
    "--verbose",
])
def test_plain_prose_has_no_identifier(text: str):
    assert identifier_tokens(text) == []


def test_a_path_matches_with_or_without_its_leading_slash():
    assert identifier_tokens("/var/log/syslog") == identifier_tokens("var/log/syslog")


def test_tokens_are_lower_cased_distinct_and_in_order():
    assert identifier_tokens("ERR_X then err_x then Api.V2") == ["err_x", "api.v2"]


def test_a_blob_is_no_identifier():
    blob = "-".join(["abcdef0123"] * 40)
    assert len(blob) > MAX_CHARS
    assert identifier_tokens(f"key {blob} end") == []


def test_the_migration_spells_the_same_pattern():
    sql = MIGRATION.read_text()
    quoted = re.search(r"regexp_matches\(body, '\((.*)\)', 'g'\)", sql)
    assert quoted is not None
    assert quoted.group(1) == PATTERN
    assert f"length(m[1]) <= {MAX_CHARS}" in sql
