"""The bank keeps itself tidy: clusters of near-duplicate entries are found
and consolidated (one entry supersedes several, in one transaction, with
full history, once per request_id), and memory_stats counts a namespace in
one round trip per service. Over MCP against the real stack."""

from __future__ import annotations

import uuid

import httpx

from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, eventually, mcp_client

PARAPHRASES = [
    "The billing service is deployed to production every Friday afternoon.",
    "Every Friday afternoon the billing service gets deployed to production.",
    "Billing service production deploys happen on Friday afternoons.",
]
UNRELATED = "The office coffee machine is descaled on the first Monday of the month."
ENTRIES = "SELECT count(*) FROM memory.entries WHERE namespace = $1"
AUDIT = ("SELECT count(*) FROM memory.audit WHERE namespace = $1 AND action = $2"
         " AND subject = $3")


def tenant(stack: Stack, prefix: str) -> tuple[str, str]:
    ns = f"{prefix}-{uuid.uuid4().hex[:6]}"
    return ns, stack.principals.create(f"a-{ns}", "agent", [ns])


async def store_all(client, texts: list[str]) -> list[str]:
    ids = [(await call(client, "memory_store", {"text": t}))["id"] for t in texts]

    async def embedded() -> bool:
        got = [await call(client, "memory_get", {"id": i}) for i in ids]
        return all(g["embedded"] for g in got)
    await eventually(embedded, 30, "entries embedded")
    return ids


async def test_candidates_group_paraphrases_and_consolidate_supersedes_them(
        stack: Stack, admin_dsn: str):
    ns, token = tenant(stack, "tidy")
    async with mcp_client(stack.mcp_url, token) as client:
        ids = await store_all(client, [*PARAPHRASES, UNRELATED])
        dupes, other = ids[:3], ids[3]

        found = await call(client, "memory_consolidation_candidates", {"min_similarity": 0.6})
        assert found["scanned"] == 4 and not found["truncated"]
        cluster = next(c for c in found["clusters"] if dupes[0] in
                       {e["id"] for e in c["entries"]})
        assert {e["id"] for e in cluster["entries"]} == set(dupes), cluster
        assert other not in {e["id"] for c in found["clusters"] for e in c["entries"]}
        assert {"billing", "friday", "production", "service"} <= set(cluster["shared_terms"])
        assert cluster["min_similarity"] >= 0.6 and "cosine similarity" in cluster["why"]

        args = {"entry_ids": dupes, "new_text": "Billing deploys to production on Fridays.",
                "reason": "three notes said the same", "request_id": "merge-1"}
        merged = await call(client, "memory_consolidate", args)
        assert sorted(merged["superseded"]) == sorted(dupes) and merged["finding"] == "update"
        before = await admin_fetchval(admin_dsn, ENTRIES, ns)
        again = await call(client, "memory_consolidate", args)
        assert again["id"] == merged["id"], "a retry with request_id takes effect once"
        assert await admin_fetchval(admin_dsn, ENTRIES, ns) == before

        for old in dupes:
            got = await call(client, "memory_get", {"id": old})
            assert got["label"] == f"superseded by {merged['id']}", got
            assert got["superseded_by"] == merged["id"]
            assert got["versions"][-1]["reason"] == "three notes said the same"
        new = await call(client, "memory_get", {"id": merged["id"]})
        assert {ln["dst"] for ln in new["links"] if ln["kind"] == "supersedes"} == set(dupes)
        assert await admin_fetchval(admin_dsn, AUDIT, ns, "entry.consolidate",
                                    merged["id"]) == 1

        after = await call(client, "memory_consolidation_candidates", {"min_similarity": 0.6})
        assert not any(set(dupes) & {e["id"] for e in c["entries"]} for c in after["clusters"])
        repeat = await call_error(client, "memory_consolidate",
                                  {**args, "request_id": ""})
        assert "already superseded" in repeat and merged["id"] in repeat


async def test_consolidate_refuses_bad_input_and_writes_nothing(stack: Stack, admin_dsn: str):
    ns, token = tenant(stack, "tidy-bad")
    reader = stack.principals.create(f"r-{ns}", "agent", [], [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        a, b = await store_all(client, PARAPHRASES[:2])
        missing = str(uuid.uuid4())
        before = await admin_fetchval(admin_dsn, ENTRIES, ns)
        ok = {"new_text": "merged", "reason": "r"}
        cases = [
            ({"entry_ids": [a], **ok}, "entry_ids must name 2-20 entries"),
            ({"entry_ids": [a, a], **ok}, "names an entry twice"),
            ({"entry_ids": [a, "nope"], **ok}, "'nope' is not an entry id"),
            ({"entry_ids": [a, missing], **ok}, f"entry {missing} does not exist"),
            ({"entry_ids": [a, b], "new_text": " ", "reason": "r"}, "text must not be empty"),
            ({"entry_ids": [a, b], "new_text": "x", "reason": ""}, "reason must not be empty"),
        ]
        for args, expected in cases:
            assert expected in await call_error(client, "memory_consolidate", args), args
        for args, expected in [({"min_similarity": 0.3}, "min_similarity must be between"),
                               ({"limit": 500}, "limit must be 1-20")]:
            assert expected in await call_error(
                client, "memory_consolidation_candidates", args), args
        assert await admin_fetchval(admin_dsn, ENTRIES, ns) == before
        for i in (a, b):
            assert (await call(client, "memory_get", {"id": i}))["label"] == "current"
    async with mcp_client(stack.mcp_url, reader) as ro:
        refused = await call_error(ro, "memory_consolidate", {"entry_ids": [a, b], **ok})
        assert "read-only access" in refused
        assert (await call(ro, "memory_consolidation_candidates", {}))["scanned"] == 2
    assert await admin_fetchval(admin_dsn, ENTRIES, ns) == before


async def test_memory_stats_counts_the_namespace(stack: Stack):
    ns, token = tenant(stack, "stats")
    reader = stack.principals.create(f"r-{ns}", "agent", [], [ns])
    async with mcp_client(stack.mcp_url, token, session="s1") as client:
        ids = await store_all(client, PARAPHRASES)
        await call(client, "memory_forget", {"entry_id": ids[2], "reason": "test"})
        await call(client, "fact_set", {"entity": "billing", "attribute": "deploy_day",
                                        "value": "Friday"})
        await call(client, "document_ingest", {"content": "Runbook: deploy billing on "
                                               "Fridays.", "source": "runbook"})
        await call(client, "board_agents", {"action": "update", "status": "tidying"})
        await call(client, "board_lease", {"action": "claim", "name": "deploy:billing"})
        await call(client, "memory_search", {"query": "billing deploy"})
        await call(client, "memory_recall", {"query": "billing"})
        stats = await call(client, "memory_stats", {})
    assert stats["entries"]["live"] == 2 and stats["entries"]["archived"] == 0
    assert stats["entries"]["superseded"] == 0 and stats["tombstones"] == 1
    assert stats["facts"] and sum(n for kind in stats["facts"].values()
                                  for n in kind.values()) == 1
    assert stats["documents"]["documents"] == 1 and stats["documents"]["chunks"] >= 1
    assert stats["board"]["agents"] == 1 and stats["board"]["leases_held"] == 1
    assert stats["review"] == {"open_conflicts": 0, "proposed_tags": 0,
                               "dreamer_proposals": 0}
    # memory_recall searches the entries too: two searches, one recall
    assert stats["last_24h"] == {"searches": 2, "recalls": 1}
    assert stats["storage_bytes"] > 0 and "storage_bytes" in stats["estimates"]
    base = stack.mcp_url.removesuffix("/mcp")
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        rest = await http.get("/v1/stats", headers={"Authorization": f"Bearer {reader}",
                                                    "X-Engram-Namespace": ns})
        assert rest.status_code == 200, rest.text
        assert rest.json()["entries"]["live"] == 2
        cands = await http.get("/v1/memories/consolidation-candidates",
                               params={"min_similarity": 0.6},
                               headers={"Authorization": f"Bearer {reader}",
                                        "X-Engram-Namespace": ns})
        assert cands.status_code == 200 and cands.json()["scanned"] == 2, cands.text
        posted = await http.post("/v1/memories/consolidate", json={
            "entry_ids": ids[:2], "new_text": "x", "reason": "r"},
            headers={"Authorization": f"Bearer {reader}", "X-Engram-Namespace": ns})
        assert posted.status_code == 403 and "read-only" in posted.text


async def test_the_dreamer_proposes_entry_merges_and_a_reviewer_decides(
        stack: Stack, admin_dsn: str):
    ns, token = tenant(stack, "tidy-dream")
    reviewer = stack.principals.create(f"rev-{ns}", "reviewer", [ns])
    texts = ["The billing service is deployed to production every Friday afternoon.",
             "The billing service is deployed to production every Friday afternoon!"]
    async with mcp_client(stack.mcp_url, token) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        ids = await store_all(client, texts)
        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["status"] == "committed", run
        items = (await call(rev, "review_list", {"kind": "merge_entries"}))["items"]
        assert len(items) == 1 and all(i in items[0]["summary"] for i in ids), items
        assert texts[0] not in items[0]["summary"], "a proposal copies no entry text"
        stats = await call(client, "memory_stats", {})
        assert stats["review"]["dreamer_proposals"] == 1
        for i in ids:  # proposed, never merged by the dreamer itself
            assert (await call(client, "memory_get", {"id": i}))["label"] == "current"

        decide = {"item_id": items[0]["id"], "decision": "approve", "reasoning": "same note"}
        refused = await call_error(client, "review_decide", decide)
        assert "needs the reviewer role; you are agent" in refused
        done = await call(rev, "review_decide", decide)
        assert done["status"] == "approved", done
        got = [await call(client, "memory_get", {"id": i}) for i in ids]
        new_id = got[0]["superseded_by"]
        assert new_id and all(g["superseded_by"] == new_id for g in got), got
        assert (await call(client, "memory_get", {"id": new_id}))["text"] == texts[1]
        assert await admin_fetchval(
            admin_dsn, "SELECT principal FROM memory.audit WHERE namespace = $1 AND "
            "action = 'entry.consolidate' AND subject = $2", ns, new_id) == f"rev-{ns}"


async def test_forgetting_an_entry_withdraws_its_open_merge_proposal(stack: Stack):
    ns, token = tenant(stack, "tidy-forget")
    reviewer = stack.principals.create(f"rev-{ns}", "reviewer", [ns])
    async with mcp_client(stack.mcp_url, token) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        ids = await store_all(client, ["Staging database backups run nightly at 02:00.",
                                       "Staging database backups run nightly at 02:00!"])
        assert (await call(client, "dream", {"action": "run"}))["run"]["status"] == "committed"
        assert len((await call(rev, "review_list", {"kind": "merge_entries"}))["items"]) == 1
        await call(client, "memory_forget", {"entry_id": ids[0], "reason": "test"})

        async def withdrawn() -> bool:
            return not (await call(rev, "review_list", {"kind": "merge_entries"}))["items"]
        await eventually(withdrawn, 30, "the merge proposal withdrawn")
