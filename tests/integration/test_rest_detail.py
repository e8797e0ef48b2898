"""Detail routes over the real stack, each the same registry operation as
its MCP tool: one document with a page of its chunks, one dream run with the
rows it touched (paged), and a rollback preview that changes nothing."""

from __future__ import annotations

import uuid

from engram_runner.stack import Stack

from ..helpers import call, eventually, mcp_client, ok_json, rest_client

NO_ID = "00000000-0000-0000-0000-000000000000"


def _agent(stack: Stack, ns: str, role: str = "agent") -> dict[str, str]:
    token = stack.principals.create(f"dt-{ns}", role, [ns])
    return {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}



async def test_document_get_pages_its_chunks(stack: Stack):
    ns = f"dg-{uuid.uuid4().hex[:6]}"
    auth = _agent(stack, ns)
    # Paragraphs of ~560 characters: one chunk each (chunks pack ~800).
    text = "\n\n".join(f"Section {i}: " + ("the ingest worker restarts nightly. " * 15)
                       for i in range(5))
    async with rest_client(stack, auth) as http, \
            mcp_client(stack.mcp_url, auth["Authorization"][7:]) as mcp:
        doc = await ok_json(await http.post("/v1/documents", json={
            "content": text, "source": "ops.md", "title": "ops"}))
        assert doc["chunks"] >= 3
        first = await ok_json(await http.get(f"/v1/documents/{doc['id']}",
                                         params={"chunk_limit": 2}))
        assert first == await call(mcp, "document_get", {"document_id": doc["id"],
                                                         "chunk_limit": 2, "namespace": ns})
        nxt = await ok_json(await http.get(f"/v1/documents/{doc['id']}",
                                       params={"chunk_offset": first["next_offset"],
                                               "chunk_limit": 50}))
        missing = await http.get(f"/v1/documents/{NO_ID}")
        malformed = await http.get("/v1/documents/not-a-uuid")
        too_big = await http.get(f"/v1/documents/{doc['id']}", params={"chunk_limit": 51})
        search = await http.get("/v1/documents/search", params={"query": "ingest"})
    assert first["title"] == "ops" and first["source"] == "ops.md"
    assert first["chars"] == len(text.strip())  # stored as the plain text, trimmed
    assert first["total_chunks"] == doc["chunks"]
    assert [c["ordinal"] for c in first["chunks"]] == [0, 1] and first["next_offset"] == 2
    assert [c["ordinal"] for c in nxt["chunks"]] == list(range(2, doc["chunks"]))
    assert nxt["next_offset"] is None
    assert "".join(c["text"] for c in first["chunks"] + nxt["chunks"]).count("Section") == 5
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert malformed.status_code == 422 and too_big.status_code == 422
    assert search.status_code == 200


async def test_dream_run_detail_and_rollback_preview(stack: Stack):
    ns = f"dd-{uuid.uuid4().hex[:6]}"
    auth = _agent(stack, ns, "reviewer")  # a rollback needs the erase grant
    entries = ["billing-api uses PostgreSQL 16.", "Never force-push to main.",
               "Running the tests now."]
    async with rest_client(stack, auth) as http, \
            mcp_client(stack.mcp_url, auth["Authorization"][7:]) as mcp:
        ids = [(await ok_json(await http.post("/v1/memories", json={"text": t})))["id"]
               for t in entries]

        async def pending() -> bool:
            return (await ok_json(await http.get("/v1/dream/status")))["pending_entries"] == 3
        await eventually(pending, 30, "3 pending entries")
        run = (await ok_json(await http.post("/v1/dream/runs", json={})))["run"]
        assert run["status"] == "committed" and run["facts_written"] >= 2
        detail = await ok_json(await http.get(f"/v1/dream/runs/{run['id']}"))
        assert detail == await call(mcp, "dream", {"action": "detail", "run_id": run["id"],
                                                   "namespace": ns})
        page = await ok_json(await http.get(f"/v1/dream/runs/{run['id']}",
                                        params={"limit": 1, "offset": 1}))
        preview = await ok_json(await http.post(f"/v1/dream/runs/{run['id']}/rollback",
                                            json={"dry_run": True}))
        still = await ok_json(await http.get(f"/v1/dream/runs/{run['id']}"))
        facts_before = await call(mcp, "fact_get", {"entity": "billing-api",
                                                    "attribute": "uses", "namespace": ns})
        rolled = await ok_json(await http.post(f"/v1/dream/runs/{run['id']}/rollback", json={}))
        after = await ok_json(await http.post(f"/v1/dream/runs/{run['id']}/rollback",
                                          json={"dry_run": True}))
        missing = await http.get(f"/v1/dream/runs/{NO_ID}")
    assert sorted(detail["entries_read"]) == sorted(ids)
    assert detail["totals"] == {"entries_read": 3, "facts_written": run["facts_written"],
                                "quarantined": 0}
    assert {f["entry_id"] for f in detail["facts_written"]} <= set(ids)
    assert len(page["entries_read"]) == 1 and page["entries_read"][0] in ids
    assert preview["dry_run"] is True and preview["allowed"] is True
    assert {f["fact_id"] for f in preview["facts_reverted"]} == \
        {f["fact_id"] for f in detail["facts_written"]}
    assert sorted(preview["entries_reopened"]) == sorted(ids)
    assert still["run"]["status"] == "committed" and facts_before["current"]
    assert rolled["run"]["status"] == "rolled_back"
    assert after["allowed"] is False and "rolled_back" in after["blockers"][0]
    assert missing.status_code == 404
