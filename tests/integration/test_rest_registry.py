"""The REST routes generated from the tool registry (rest_registry.py), over
the real stack: each answers what its MCP tool answers for the same
arguments, refuses as the tool refuses (read-only grant, reviewer role),
validates with the tool's own signature (unknown field, out-of-range value:
422 naming the field), and the OpenAPI document carries the constraints."""

from __future__ import annotations

import uuid

from engram_gateway.doors.rest_routes import generated_routes
from engram_runner.stack import Stack

from ..helpers import call, mcp_client, ok_json, rest_client

NO_ID = "00000000-0000-0000-0000-000000000000"
NEW_ROUTES = {
    ("POST", "/v1/facts"), ("GET", "/v1/facts"), ("GET", "/v1/facts/history"),
    ("POST", "/v1/facts/retract"), ("GET", "/v1/conflicts"),
    ("POST", "/v1/conflicts/{conflict_id}/resolve"), ("GET", "/v1/review"),
    ("POST", "/v1/review/{item_id}/decide"), ("GET", "/v1/graph/neighbors"),
    ("POST", "/v1/graph/edges"), ("DELETE", "/v1/graph/edges"), ("GET", "/v1/recall"),
    ("POST", "/v1/documents"), ("GET", "/v1/documents/search"), ("GET", "/v1/dream/status"),
    ("GET", "/v1/dream/runs"), ("POST", "/v1/dream/runs"),
    ("POST", "/v1/dream/runs/{run_id}/rollback"),
}


def _principal(stack: Stack, role: str, ns: str, read_only: bool = False) -> dict[str, str]:
    name = f"rr-{role}-{'ro-' if read_only else ''}{ns}"
    token = (stack.principals.create(name, role, [], [ns]) if read_only
             else stack.principals.create(name, role, [ns]))
    return {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}



def test_every_new_route_is_generated():
    generated = {(r.method, r.path) for r in generated_routes()}
    assert generated >= NEW_ROUTES


async def test_fact_and_review_routes_answer_as_the_tools(stack: Stack):
    ns = f"rr-{uuid.uuid4().hex[:6]}"
    agent, reviewer = _principal(stack, "agent", ns), _principal(stack, "reviewer", ns)
    e = f"svc-{ns}"
    slot = {"entity": e, "attribute": "ci"}
    async with rest_client(stack, agent) as http, \
            mcp_client(stack.mcp_url, agent["Authorization"][7:]) as mcp:
        first = await ok_json(await http.post("/v1/facts", json=slot | {"value": "GitHub Actions"}))
        assert first["action"] == "insert"
        other = await ok_json(await http.post("/v1/facts", json=slot | {
            "value": "Jenkins", "evidence_quote": "CI runs on Jenkins"}))
        assert other["action"] == "contest"
        await ok_json(await http.post("/v1/facts", json={"entity": e, "attribute": "db",
                                                     "value": "postgres"}))
        await ok_json(await http.post("/v1/facts", json={"entity": e, "attribute": "db",
                                                     "value": "mysql"}))
        args = slot | {"namespace": ns}
        assert await ok_json(await http.get("/v1/facts", params=slot)) == \
            await call(mcp, "fact_get", args)
        assert await ok_json(await http.get("/v1/facts/history", params={"entity": e})) == \
            await call(mcp, "fact_history", {"entity": e, "namespace": ns})
        assert await ok_json(await http.get("/v1/conflicts")) == \
            await call(mcp, "conflict_list", {"namespace": ns})
        items = await ok_json(await http.get("/v1/review", params={"kind": "conflict"}))
        assert items == await call(mcp, "review_list", {"kind": "conflict", "namespace": ns})
        refused = await http.post(f"/v1/conflicts/{other['conflict_id']}/resolve",
                                  json={"winner_id": other["fact"]["id"], "reasoning": "r"})
        assert refused.status_code == 403
        assert "needs the reviewer role; you are agent" in refused.json()["detail"]["detail"]
        owner = await ok_json(await http.post("/v1/facts", json={"entity": e, "attribute": "owner",
                                                             "value": "team-a"}))
        retract = {"entity": e, "attribute": "owner", "reason": "wrong team"}
        retracted = await ok_json(await http.post("/v1/facts/retract", json=retract))
        assert retracted["ids"] == [owner["fact"]["id"]]
        nothing = await http.post("/v1/facts/retract", json=retract)
        assert nothing.status_code == 404 and "no live fact" in nothing.json()["detail"]
    async with rest_client(stack, reviewer) as rev:
        settled = await ok_json(await rev.post(
            f"/v1/conflicts/{other['conflict_id']}/resolve",
            json={"winner_id": other["fact"]["id"], "reasoning": "moved in May"}))
        assert settled["conflict"]["status"] == "resolved"
        open_items = [i for i in items["items"] if i["id"] != other["conflict_id"]]
        assert open_items, items
        decided = await ok_json(await rev.post(f"/v1/review/{open_items[0]['id']}/decide",
                                           json={"decision": "both_stand",
                                                 "reasoning": "both hold"}))
        assert decided["item_id"] == open_items[0]["id"] and decided["kind"] == "conflict"
        again = await rev.post(f"/v1/review/{open_items[0]['id']}/decide",
                               json={"decision": "both_stand", "reasoning": "again"})
        assert 400 <= again.status_code < 500 and again.json()["detail"]


async def test_graph_document_and_dream_routes_answer_as_the_tools(stack: Stack):
    ns = f"rr-{uuid.uuid4().hex[:6]}"
    agent = _principal(stack, "agent", ns)
    edge = {"src": f"api-{ns}", "relation": "depends_on", "dst": f"db-{ns}"}
    async with rest_client(stack, agent) as http, \
            mcp_client(stack.mcp_url, agent["Authorization"][7:]) as mcp:
        related = await ok_json(await http.post("/v1/graph/edges", json=edge))
        assert related["action"] == "insert"
        near = {"entity": edge["src"], "depth": 2}
        assert await ok_json(await http.get("/v1/graph/neighbors", params=near)) == \
            await call(mcp, "graph_neighbors", near | {"namespace": ns})
        recall = {"query": f"what does api-{ns} depend on", "hops": 1, "top_k": 3}
        assert await ok_json(await http.get("/v1/recall", params=recall)) == \
            await call(mcp, "memory_recall", recall | {"namespace": ns})
        retired = await ok_json(await http.request("DELETE", "/v1/graph/edges", json=edge))
        assert retired["action"] == "retire"
        doc = await ok_json(await http.post("/v1/documents", json={
            "content": f"The {ns} runbook: restart the ingest worker first.",
            "source": "runbook.md", "title": "runbook"}))
        assert doc["chunks"] >= 1 and doc["duplicate"] is False
        query = {"query": "restart the ingest worker", "top_k": 3}
        found = await ok_json(await http.get("/v1/documents/search", params=query))
        assert found == await call(mcp, "document_search", query | {"namespace": ns})
        assert found["documents"][0]["document_id"] == doc["id"]
        status = await ok_json(await http.get("/v1/dream/status"))
        assert status.keys() == (await call(mcp, "dream", {"namespace": ns})).keys()
        run = await ok_json(await http.post("/v1/dream/runs", json={}))
        runs = await ok_json(await http.get("/v1/dream/runs", params={"limit": 5}))
        assert runs == await call(mcp, "dream", {"action": "runs", "limit": 5,
                                                 "namespace": ns})
        assert run["run_id"] in [r["id"] for r in runs["runs"]]
        refused = await http.post(f"/v1/dream/runs/{NO_ID}/rollback")
        assert refused.status_code == 403 and "erase grant" in refused.text
    async with rest_client(stack, _principal(stack, "reviewer", ns)) as rev:
        missing = await rev.post(f"/v1/dream/runs/{NO_ID}/rollback")
        assert missing.status_code == 404 and missing.json()["error"] == "not_found"


async def test_generated_routes_refuse_and_validate(stack: Stack):
    ns = f"rr-{uuid.uuid4().hex[:6]}"
    reader = _principal(stack, "operator", ns, read_only=True)
    agent = _principal(stack, "agent", ns)
    async with rest_client(stack, reader) as http:
        write = await http.post("/v1/facts", json={"entity": "e", "attribute": "a",
                                                   "value": "v"})
        read = await http.get("/v1/facts", params={"entity": "e", "attribute": "a"})
    assert write.status_code == 403 and "read-only access" in write.json()["detail"]["detail"]
    assert read.status_code == 200
    async with rest_client(stack, agent) as http:
        unknown = await http.post("/v1/facts", json={"entity": "e", "attribute": "a",
                                                     "value": "v", "confidance": 0.5})
        too_sure = await http.post("/v1/facts", json={"entity": "e", "attribute": "a",
                                                      "value": "v", "confidence": 2})
        bad_kind = await http.post("/v1/facts", json={"entity": "e", "attribute": "a",
                                                      "value": "v", "kind": "GUESS"})
        too_deep = await http.get("/v1/graph/neighbors", params={"entity": "e", "depth": 9})
        bad_query = await http.get("/v1/conflicts", params={"stauts": "open"})
        no_action = await http.post("/v1/dream/runs", json={"action": "rollback"})
    assert unknown.status_code == 422 and "'confidance'" in unknown.text
    assert "accepts: entity, attribute, value" in unknown.text
    for r, field in ((too_sure, "confidence"), (bad_kind, "kind"), (too_deep, "depth"),
                     (bad_query, "stauts"), (no_action, "action")):
        assert r.status_code == 422, (field, r.text)
        assert field in [str(x) for d in r.json()["detail"] for x in d["loc"]] or \
            f"'{field}'" in r.text, (field, r.text)


async def test_openapi_lists_the_new_routes_with_their_constraints(stack: Stack):
    async with rest_client(stack, {}) as http:
        doc = await ok_json(await http.get("/v1/openapi.json"))
    listed = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert listed >= NEW_ROUTES, NEW_ROUTES - listed
    schemas = doc["components"]["schemas"]
    fact = schemas["FactSetBody"]
    assert fact["additionalProperties"] is False
    assert fact["required"] == ["entity", "attribute", "value"]
    assert "RULE" in fact["properties"]["kind"]["enum"]
    assert fact["properties"]["confidence"]["maximum"] == 1
    assert fact["properties"]["confidence"]["exclusiveMinimum"] == 0
    params = {p["name"]: p["schema"] for p in doc["paths"]["/v1/graph/neighbors"]["get"]
              ["parameters"]}
    assert (params["depth"]["minimum"], params["depth"]["maximum"]) == (1, 3)
    conflicts = {p["name"]: p["schema"] for p in doc["paths"]["/v1/conflicts"]["get"]
                 ["parameters"]}
    assert conflicts["status"]["enum"] == ["open", "resolved", "both_stand"]
    assert conflicts["limit"]["maximum"] == 200
