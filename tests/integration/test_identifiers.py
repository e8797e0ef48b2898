"""Identifiers keep their shape in the lexical channel (migration 0023):
through the real stack, an identifier query finds the row that holds it
exactly, ahead of rows holding its pieces."""

from __future__ import annotations

import uuid

import pytest

from engram_memory.identifiers import identifier_tokens
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, mcp_client, postings_out_of_step

# Each gold row, then rows holding its pieces or a near miss.
ROWS = {
    "reset": "Clients log ERR_CONN_RESET when the balancer drops idle sockets.",
    "refused": "ERR_CONN_REFUSED means the service is not listening at all.",
    "timeout": "ERR_CONN_TIMEOUT shows up when the tunnel is slow; reset it.",
    "reset-word": "Reset the connection pool after a deploy, old connections linger.",
    "user_id": "Join the orders on user_id, it is indexed in both tables.",
    "user_name": "user_name is not unique: two users can share one name.",
    "id": "Every table has an id primary key and an owner user.",
    "rc1": "Release v1.2.3-rc1 went to staging with the new retry policy.",
    "rc2": "Release v1.2.3-rc2 fixed the retry backoff of the first candidate.",
    "v124": "Release v1.2.4-rc1 adds the importer, staging only.",
    "foo-bar": "Foo::bar() panics when it is handed an empty slice.",
    "foo-baz": "Foo::baz() returns the cached value, bar is never called.",
    "path": "TLS is configured in /etc/nginx/conf.d/app.conf, reload after edits.",
    "path2": "The admin site has /etc/nginx/conf.d/admin.conf for the app admins.",
}
QUERIES = {"ERR_CONN_RESET": "reset", "user_id": "user_id", "v1.2.3-rc1": "rc1",
           "Foo::bar()": "foo-bar", "/etc/nginx/conf.d/app.conf": "path"}
SAMPLES = ["api-v2.internal:8443 and /etc/nginx/conf.d/app.conf", "v1.2.3-rc1 user_id",
           "Foo::bar() 550e8400-e29b-41d4-a716-446655440000 ERR_CONN_RESET",
           "plain words only.", "a::b:c x.y.z a-b_c@d#e+f ~/.config/x.toml"]


@pytest.fixture(scope="module")
def namespace_token(stack: Stack) -> tuple[str, str]:
    ns = f"ident-{uuid.uuid4().hex[:6]}"
    return ns, stack.principals.create(f"p-{ns}", "agent", [ns])


async def test_postgres_and_python_cut_the_same_identifiers(admin_dsn: str):
    for text in SAMPLES:
        in_sql = await admin_fetchval(admin_dsn, "SELECT memory.identifier_lexemes($1)", text)
        assert sorted(in_sql) == sorted(identifier_tokens(text)), text


async def test_an_identifier_query_finds_its_row_first(stack: Stack, admin_dsn: str,
                                                       namespace_token: tuple[str, str]):
    ns, token = namespace_token
    async with mcp_client(stack.mcp_url, token) as client:
        ids = {}
        for key, text in ROWS.items():
            reply = await call(client, "memory_store", {"text": text, "namespace": ns})
            ids[reply["id"]] = key
        for query, gold in QUERIES.items():
            found = await call(client, "memory_search", {
                "query": query, "namespace": ns, "top_k": 5, "explain": True})
            top = [ids[e["id"]] for e in found["entries"]]
            assert top[0] == gold, (query, top)
            whole = identifier_tokens(query)[0]
            terms = {t["term"]: t for t in found["trace"]["query_terms"]}
            assert terms[whole] == {"term": whole, "rows": 1, "used": True}
    assert await postings_out_of_step(admin_dsn, "entry_lexemes", "entry_id", "entries",
                                      "doc_len") == 0
