"""Identifiers in the lexical channel: hosts, paths, versions, symbols, ids.

Postgres' `english` parser splits `user_id` into `user` and `id`,
`ERR_CONN_RESET` into three common words and `v1.2.3-rc1` into pieces, so a
query naming one of them matches every row holding a piece. Migration 0023
adds each identifier-shaped token to an entry's lexemes whole (lower-cased,
beside the parser's own), and to a query's terms the same way: the exact
identifier is then one rare term that only its rows hold.

A token is two or more runs of ASCII letters and digits joined by one of
`. _ : / @ # + -` or by `::`: `api-v2.internal:8443`, `etc/nginx/conf.d/app.conf`
(a leading `/` or `~/` is not part of it, so a path matches written either
way), `foo::bar`, a UUID. `PATTERN` is written once here and spelled
identically in the migration's SQL (a unit test holds them together); it
uses only syntax that Python's `re` and Postgres' regular expressions read
alike. Tokens longer than `MAX_CHARS` are skipped: a btree entry has a size
limit, and a blob is no identifier anyone types."""

from __future__ import annotations

import re

PATTERN = r"[A-Za-z0-9]+(?:(?:::|[._:/@#+-])[A-Za-z0-9]+)+"
MAX_CHARS = 200
_TOKEN = re.compile(PATTERN)


def identifier_tokens(text: str) -> list[str]:
    """The identifier lexemes of `text`, lower-cased, distinct, in order."""
    found = (m.group(0).lower() for m in _TOKEN.finditer(text))
    return list(dict.fromkeys(t for t in found if len(t) <= MAX_CHARS))
