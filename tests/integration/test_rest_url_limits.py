"""A GET route's arguments travel in the URL, so what the OpenAPI document
declares for a query parameter must fit in the request head the gateway
reads: every string query parameter at its declared maxLength, in the
widest encoding (a 4-byte character is 12 bytes percent-encoded), gets a
JSON answer, never a dropped connection or a plain-text refusal. The head
limit holds however the head arrives (TCP may split it into pieces)."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from engram_runner.stack import Stack
from tests.helpers import rest_client

WIDE = "\U0001d11e"  # 4 bytes in UTF-8, 12 once percent-encoded


def _headers(stack: Stack) -> dict[str, str]:
    ns = f"url-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"url-{ns}", "operator", [ns])
    return {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}


def _string_max(schema: dict[str, Any]) -> int | None:
    options = [schema, *schema.get("anyOf", [])]
    lengths = [o["maxLength"] for o in options if o.get("type") == "string" and "maxLength" in o]
    return max(lengths) if lengths else None


def _long_query_params(document: dict[str, Any]) -> list[tuple[str, str, int, dict[str, str]]]:
    """(path, parameter, maxLength, required others) for every GET string query parameter."""
    found = []
    for template, ops in document["paths"].items():
        op = ops.get("get")
        if not template.startswith("/v1/") or op is None:
            continue
        path = re.sub(r"{\w+}", str(uuid.uuid4()), template)
        params = [p for p in op.get("parameters", []) if p["in"] == "query"]
        required = {p["name"]: "a" for p in params if p.get("required")}
        for p in params:
            longest = _string_max(p.get("schema", {}))
            if longest is not None:
                found.append((path, p["name"], longest, required))
    return found


async def test_every_query_parameter_at_its_declared_length_gets_a_json_answer(stack: Stack):
    async with rest_client(stack, _headers(stack)) as http:
        document = (await http.get("/v1/openapi.json")).json()
        cases = _long_query_params(document)
        assert any(name == "episode" for _, name, _, _ in cases), cases
        failures = []
        for path, name, longest, required in cases:
            params = {**required, name: WIDE * longest}
            try:
                r = await http.get(path, params=params)
            except (httpx.TransportError, httpx.InvalidURL) as exc:  # not even sendable
                failures.append(f"{path}?{name}=<{longest} chars>: no answer ({exc!r})")
                continue
            if r.status_code >= 500 or not r.headers.get("content-type", "").startswith(
                    "application/json"):
                failures.append(f"{path}?{name}=<{longest} chars>: {r.status_code} {r.text[:120]}")
    assert not failures, "\n".join(failures)


async def _raw_get_in_pieces(stack: Stack, target: str, headers: dict[str, str]) -> str:
    """Send a GET head in 4 KiB writes with pauses between them, as a slow or
    distant client's head arrives, and return the answer's status line and body."""
    url = urlsplit(stack.mcp_url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        head = "\r\n".join([f"GET {target} HTTP/1.1", f"Host: {url.netloc}",
                            *[f"{k}: {v}" for k, v in headers.items()], "Connection: close",
                            "", ""]).encode()
        for start in range(0, len(head), 4096):
            writer.write(head[start:start + 4096])
            await writer.drain()
            await asyncio.sleep(0.05)
        answer = await asyncio.wait_for(reader.read(), timeout=30)
        return answer.decode(errors="replace")
    finally:
        writer.close()


async def test_a_head_within_the_limit_is_read_whole_when_it_arrives_in_pieces(stack: Stack):
    query = quote(WIDE * 2000)  # memory_search's longest query: 24 000 bytes in the URL
    answer = await _raw_get_in_pieces(stack, f"/v1/memories/search?query={query}",
                                      _headers(stack))
    status, _, rest = answer.partition("\r\n")
    assert status == "HTTP/1.1 200 OK", answer[:300]
    assert "entries" in json.loads(rest.split("\r\n\r\n", 1)[1])
