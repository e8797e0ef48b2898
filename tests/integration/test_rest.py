"""REST routes through the real gateway: memories end to end, refusals
(no token, wrong namespace, read-only grant, bad input), and a schemathesis
fuzz run over the published OpenAPI description that must find no 5xx."""

from __future__ import annotations

import uuid

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.core.result import Err, Ok

from engram_runner.stack import Stack


def base_url(stack: Stack) -> str:
    return stack.mcp_url.removesuffix("/mcp")


def agent(stack: Stack, prefix: str) -> tuple[str, dict[str, str]]:
    ns = f"{prefix}-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    return ns, {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}


async def test_rest_memory_routes(stack: Stack):
    ns, auth = agent(stack, "rest")
    url = base_url(stack) + "/v1/memories"
    async with httpx.AsyncClient(timeout=30) as http:
        stored = await http.post(url, json={"text": "The VPN gateway is vpn-2.corp.example.",
                                            "tags": ["infra"], "source": "rest-test"},
                                 headers=auth)
        assert stored.status_code == 200, stored.text
        entry = stored.json()
        assert entry["finding"] == "new" and entry["embedded"] is True
        found = (await http.get(f"{url}/search", params={"query": "which VPN gateway",
                                                         "explain": "true"},
                                headers=auth)).json()
        assert found["entries"][0]["id"] == entry["id"] and "trace" in found
        got = (await http.get(f"{url}/{entry['id']}", headers=auth)).json()
        assert got["text"] == "The VPN gateway is vpn-2.corp.example."
        recent = (await http.get(f"{url}/recent", params={"n": 5}, headers=auth)).json()
        assert [e["id"] for e in recent["entries"]] == [entry["id"]]
        new = (await http.post(f"{url}/{entry['id']}/supersede",
                               json={"new_text": "The VPN gateway is vpn-3.corp.example.",
                                     "reason": "migrated"}, headers=auth)).json()
        again = await http.post(f"{url}/{entry['id']}/supersede",
                                json={"new_text": "x"}, headers=auth)
        rescued = (await http.post(f"{url}/{new['id']}/rescue", json={"reason": "keep"},
                                   headers=auth)).json()
        superseded = await http.post(f"{url}/{entry['id']}/rescue", json={}, headers=auth)
        forgot = (await http.post(f"{url}/{new['id']}/forget", json={"reason": "test"},
                                  headers=auth)).json()
        gone = await http.get(f"{url}/{new['id']}", headers=auth)
    assert new["superseded"] == [entry["id"]]
    assert again.status_code == 409 and "already superseded" in again.json()["detail"]
    assert rescued["id"] == new["id"] and rescued["was_archived"] is False
    assert superseded.status_code == 409 and "only a live or archived" in \
        superseded.json()["detail"]
    assert forgot["forgotten"] == [new["id"]]
    assert gone.status_code == 404


async def test_rest_refusals(stack: Stack):
    ns, auth = agent(stack, "restno")
    other, _ = agent(stack, "restother")
    reader = stack.principals.create(f"rd-{ns}", "agent", [other], read_namespaces=[ns])
    url = base_url(stack) + "/v1/memories"
    async with httpx.AsyncClient(timeout=30) as http:
        anonymous = await http.get(f"{url}/search", params={"query": "x"})
        bad_token = await http.get(f"{url}/search", params={"query": "x"},
                                   headers={"Authorization": "Bearer nope"})
        foreign = await http.get(f"{url}/search", params={"query": "x"},
                                 headers={**auth, "X-Engram-Namespace": other})
        read_ok = await http.get(f"{url}/search", params={"query": "x"},
                                 headers={"Authorization": f"Bearer {reader}",
                                          "X-Engram-Namespace": ns})
        read_write = await http.post(url, json={"text": "not allowed"},
                                     headers={"Authorization": f"Bearer {reader}",
                                              "X-Engram-Namespace": ns})
        bad_id = await http.get(f"{url}/not-a-uuid", headers=auth)
        bad_date = await http.post(url, json={"text": "t", "valid_from": "yesterday"},
                                   headers=auth)
        empty = await http.post(url, json={"text": "   "}, headers=auth)
        too_many = await http.get(f"{url}/search", params={"query": "x", "top_k": 500},
                                  headers=auth)
        bad_session = await http.get(f"{url}/search", params={"query": "x"},
                                     headers={**auth, "X-Engram-Session": "two words"})
    assert anonymous.status_code == 401 and bad_token.status_code == 401
    assert foreign.status_code == 403
    assert read_ok.status_code == 200
    assert read_write.status_code == 403
    # The schema's own constraints (the OpenAPI document carries them): 422 naming the field.
    assert bad_id.status_code == 422 and "entry_id" in bad_id.text
    assert bad_date.status_code == 422 and "ISO-8601" in bad_date.text
    assert "valid_from" in bad_date.text
    assert empty.status_code == 422 and "text" in empty.text
    assert too_many.status_code == 422
    assert bad_session.status_code == 422 and "x-engram-session" in bad_session.text.lower()


def test_rest_api_fuzz_finds_no_server_error(stack: Stack):
    _, auth = agent(stack, "restfuzz")
    base = base_url(stack)
    schema = schemathesis.openapi.from_url(f"{base}/v1/openapi.json")
    failures: list[str] = []
    results = list(schema.get_all_operations())
    invalid = [r.err() for r in results if isinstance(r, Err)]
    assert not invalid, invalid
    operations = [r.ok() for r in results if isinstance(r, Ok)]
    assert {op.path for op in operations} >= {"/v1/memories", "/v1/memories/search",
                                              "/v1/board/agents", "/v1/board/messages"}
    for op in operations:
        # hypothesis's enum metaclass __iter__ is unannotated: list(HealthCheck) is
        # a list of HealthCheck at run time, of HealthCheckMeta to pyright
        @settings(max_examples=25, deadline=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))  # pyright: ignore[reportArgumentType]
        @given(op.as_strategy())
        def one_call(case: schemathesis.Case) -> None:
            response = case.call(base_url=base, headers=auth, timeout=30)
            body = response.text
            if response.status_code >= 500 or "Traceback" in body:
                failures.append(f"{case.method} {case.formatted_path} {case.query!r} "
                                f"{case.headers!r} {case.body!r} -> {response.status_code} "
                                f"{body[:200]}")

        one_call()
    assert not failures, "\n".join(failures[:10])


async def test_cors_is_closed_by_default(stack: Stack):
    _, auth = agent(stack, "restcors")
    url = base_url(stack) + "/v1/memories/search"
    async with httpx.AsyncClient(timeout=30) as http:
        simple = await http.get(url, params={"query": "x"},
                                headers={**auth, "Origin": "https://evil.example"})
        preflight = await http.options(url, headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization"})
    assert "access-control-allow-origin" not in simple.headers
    assert "access-control-allow-origin" not in preflight.headers
    assert preflight.status_code >= 400
