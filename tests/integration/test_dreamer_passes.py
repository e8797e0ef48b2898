"""Dream passes through the real stack: entries -> extractor -> cortex, with
anchored evidence, idempotent intake, exact rollback, the openai backend
against an OpenAI-protocol server, and recovery from a pass killed midway."""

from __future__ import annotations

import asyncio
import signal
import uuid
from pathlib import Path

import httpx
import pytest

from engram.v1 import dreamer_pb2, dreamer_pb2_grpc, events_pb2
from engram_kit.context import CallerContext
from engram_kit.errors import Unavailable
from engram_kit.grpc_client import Caller, open_channel
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, call_error, eventually, mcp_client, nats_client
from ..procs import probe_port, service_process, start_fake

CORTEX_STATE = """SELECT coalesce(md5(string_agg(x, ',' ORDER BY x)), '') FROM (
    SELECT f::text AS x FROM cortex.facts f WHERE namespace = $1
    UNION ALL SELECT c::text FROM cortex.conflicts c WHERE namespace = $1
    UNION ALL SELECT t::text FROM cortex.tombstones t WHERE namespace = $1
    UNION ALL SELECT s::text FROM cortex.slots s WHERE namespace = $1
    UNION ALL SELECT e::text FROM cortex.entities e WHERE namespace = $1) rows"""


def principal(stack: Stack, role: str = "agent") -> tuple[str, str]:
    """A namespace and a token for it (a reviewer where the test rolls a run
    back: that needs the erase grant)."""
    ns = f"dream-{uuid.uuid4().hex[:6]}"
    return ns, stack.principals.create(f"p-{ns}", role, [ns])


async def pending(client, n: int) -> None:
    async def check() -> bool:
        return (await call(client, "dream", {"action": "status"}))["pending_entries"] == n
    await eventually(check, 30, f"{n} pending entries")


async def test_rules_pass_writes_anchored_facts_and_rolls_back(stack: Stack, admin_dsn: str):
    ns, token = principal(stack, "reviewer")
    entries = ["billing-api uses PostgreSQL 16.", "Never force-push to main.",
               "Running the tests now.", "On 2025-03-04 the payments database failed over."]
    async with mcp_client(stack.mcp_url, token) as client:
        status = await call(client, "dream", {"action": "status"})
        assert status["extractor"] == "rules" and "on demand" in status["triggers"]
        ids = [(await call(client, "memory_store", {"text": t}))["id"] for t in entries]
        await pending(client, 4)
        before = await admin_fetchval(admin_dsn, CORTEX_STATE, ns)
        done = (await call(client, "dream", {"action": "run"}))["run"]
        assert done["status"] == "committed" and done["entries"] == 4
        assert done["facts_written"] == 3 and done["dropped_unanchored"] == 0
        got = await call(client, "fact_get", {"entity": "billing-api", "attribute": "uses",
                                              "verbose": True})
        [fact] = got["current"]
        assert fact["value"] == "PostgreSQL 16" and fact["evidence"]["quote"] == entries[0]
        assert fact["evidence"]["source_ref"] == ids[0]
        assert fact["evidence"]["captured_by"] == "dreamer/rules" and fact["origin"] == "agent"
        events = await call(client, "fact_history", {"entity": "payments-database"})
        assert [f["valid_from"][:10] for f in events["facts"]] == ["2025-03-04"]
        assert (await call(client, "dream", {"action": "status"}))["pending_entries"] == 0

        rolled = await call(client, "dream", {"action": "rollback", "run_id": done["id"]})
        assert rolled["run"]["status"] == "rolled_back" and rolled["reverted_rows"] > 0
        assert await admin_fetchval(admin_dsn, CORTEX_STATE, ns) == before
        assert (await call(client, "dream", {"action": "status"}))["pending_entries"] == 4
        err = await call_error(client, "dream", {"action": "rollback", "run_id": done["id"]})
        assert "only a committed run" in err

        # A later write that builds on the pass makes its rollback refuse.
        again = (await call(client, "dream", {"action": "run"}))["run"]
        await call(client, "fact_set", {"entity": "billing-api", "attribute": "uses",
                                        "value": "PostgreSQL 17", "replaces": True})
        err = await call_error(client, "dream", {"action": "rollback", "run_id": again["id"]})
        assert "later writes depend on this batch" in err
        runs = await call(client, "dream", {"action": "runs"})
        assert [r["status"] for r in runs["runs"][:2]] == ["committed", "rolled_back"]


async def test_redelivered_events_apply_once(stack: Stack, admin_dsn: str):
    ns, token = principal(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        stored = await call(client, "memory_store", {"text": "search-api uses OpenSearch 2."})
        await pending(client, 1)
        await call(client, "dream", {"action": "run"})
        event_id = await admin_fetchval(
            admin_dsn, "SELECT event_id::text FROM dreamer.pending_entries WHERE entry_id = "
            "$1::uuid", stored["id"])
        envelope = events_pb2.EventEnvelope(event_id=event_id, type="memory.entry.stored",
                                            namespace=ns, principal="replay")
        envelope.entry_stored.CopyFrom(events_pb2.EntryStored(entry_id=stored["id"],
                                                              finding="new"))
        nc = await nats_client(stack, "memory")  # as memory would replay it
        try:  # a new Nats-Msg-Id: JetStream accepts it, the dreamer's ledger must not
            await nc.jetstream().publish("engram.events.memory.entry.stored",
                                         envelope.SerializeToString(),
                                         headers={"Nats-Msg-Id": uuid.uuid4().hex})
        finally:
            await nc.close()

        async def redelivered() -> bool:
            return bool(await admin_fetchval(
                admin_dsn, "SELECT redeliveries FROM dreamer.processed_events "
                "WHERE event_id = $1::uuid AND consumer = 'dreamer'", event_id))
        await eventually(redelivered, 30, "the replayed event")
        assert (await call(client, "dream", {"action": "status"}))["pending_entries"] == 0
        second = (await call(client, "dream", {"action": "run"}))["run"]
        assert second["entries"] == 0 and second["facts_written"] == 0
        facts = await call(client, "fact_history", {"entity": "search-api"})
        assert len(facts["facts"]) == 1


def dreamer_stub(port: int) -> dreamer_pb2_grpc.DreamerServiceStub:
    return dreamer_pb2_grpc.DreamerServiceStub(open_channel(f"127.0.0.1:{port}"))


async def test_openai_backend_anchors_quarantines_and_recovers(stack: Stack, admin_dsn: str,
                                                                tmp_path: Path):
    ns, token = principal(stack)
    llm, llm_port = start_fake("fake_llm", [], tmp_path)
    overrides = {"ENGRAM_EXTRACTOR": "openai", "ENGRAM_LLM_BASE_URL":
                 f"http://127.0.0.1:{llm_port}", "ENGRAM_LLM_MODEL": "fake-model",
                 "ENGRAM_LLM_BATCH": "1", "ENGRAM_LLM_RETRIES": "0",
                 "ENGRAM_CONSUMER_DURABLE": f"dreamer-{ns}", "ENGRAM_TRIGGER_BACKLOG": "0",
                 "ENGRAM_TRIGGER_IDLE_S": "0", "ENGRAM_TRIGGER_SCHEDULE_S": "0"}
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=120)
    ctx = CallerContext(principal=f"p-{ns}", namespace=ns)
    try:
        await eventually(lambda: _up(llm_port), 30, "fake LLM")
        async with mcp_client(stack.mcp_url, token) as client:
            for text in ("alpha-svc uses Redis.", "beta-svc uses Kafka. HALLUCINATE",
                         "gamma-svc uses NATS. POISON"):
                await call(client, "memory_store", {"text": text})
            await pending(client, 3)
            with service_process(stack, "dreamer", overrides, tmp_path) as proc:
                run = (await caller.call(dreamer_stub(proc["grpc"]).Run,
                                         dreamer_pb2.DreamRunRequest(), ctx)).run
            assert (run.extractor, run.model) == ("openai", "fake-model")
            assert (run.facts_written, run.dropped_unanchored, run.quarantined) == (1, 1, 1)
            got = await call(client, "fact_get", {"entity": "alpha-svc", "attribute": "uses",
                                                  "verbose": True})
            assert got["current"][0]["origin"] == "assistant"
            assert got["current"][0]["evidence"]["captured_by"] == "dreamer/openai:fake-model"
            reason = await admin_fetchval(admin_dsn, "SELECT reason FROM dreamer.quarantine "
                                          "WHERE namespace = $1", ns)
            assert "HTTPStatusError" in reason

            # Kill a pass midway: what it wrote is reverted before the next pass.
            await call(client, "memory_store", {"text": "epsilon-svc uses Memcached."})
            await call(client, "memory_store", {"text": "delta-svc uses Mongo. SLOW"})
            await pending(client, 2)
            with service_process(stack, "dreamer", overrides, tmp_path) as proc:
                task = asyncio.create_task(caller.call(
                    dreamer_stub(proc["grpc"]).Run, dreamer_pb2.DreamRunRequest(), ctx))

                async def epsilon_written() -> bool:
                    return bool(await admin_fetchval(
                        admin_dsn, "SELECT count(*) FROM cortex.facts WHERE namespace = $1 "
                        "AND entity = 'epsilon-svc'", ns))
                await eventually(epsilon_written, 30, "the first write of the pass")
                proc["proc"].send_signal(signal.SIGKILL)
                proc["proc"].wait(10)
                task.cancel()
            quick = overrides | {"ENGRAM_LLM_TIMEOUT_S": "2"}
            with service_process(stack, "dreamer", quick, tmp_path) as proc:
                run = (await caller.call(dreamer_stub(proc["grpc"]).Run,
                                         dreamer_pb2.DreamRunRequest(), ctx)).run
                runs = (await caller.call(dreamer_stub(proc["grpc"]).Runs,
                                          dreamer_pb2.DreamRunsRequest(), ctx)).runs
            assert run.status == "committed" and run.facts_written == 1 and run.quarantined == 1
            assert [r.status for r in runs[:2]] == ["committed", "aborted"]
            count = await admin_fetchval(admin_dsn, "SELECT count(*) FROM cortex.facts WHERE "
                                         "namespace = $1 AND entity = 'epsilon-svc'", ns)
            assert count == 1, "the killed pass's write was reverted, then written once"
    finally:
        llm.kill()  # it may be sleeping in a SLOW request
        llm.wait(10)


async def test_an_unreachable_extractor_quarantines_nothing(stack: Stack, admin_dsn: str,
                                                            tmp_path: Path):
    """A model server that is down is no entry's fault: the pass fails with
    UNAVAILABLE, its entries stay pending, and the next pass (server back)
    consolidates them."""
    ns, token = principal(stack)
    down = probe_port()  # nothing listens there
    overrides = {"ENGRAM_EXTRACTOR": "openai", "ENGRAM_LLM_BASE_URL": f"http://127.0.0.1:{down}",
                 "ENGRAM_LLM_MODEL": "fake-model", "ENGRAM_LLM_RETRIES": "1",
                 "ENGRAM_CONSUMER_DURABLE": f"dreamer-{ns}", "ENGRAM_TRIGGER_BACKLOG": "0",
                 "ENGRAM_TRIGGER_IDLE_S": "0", "ENGRAM_TRIGGER_SCHEDULE_S": "0"}
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=120)
    ctx = CallerContext(principal=f"p-{ns}", namespace=ns)
    async with mcp_client(stack.mcp_url, token) as client:
        for text in ("zeta-svc uses Redis.", "eta-svc uses Kafka."):
            await call(client, "memory_store", {"text": text})
        await pending(client, 2)
        with service_process(stack, "dreamer", overrides, tmp_path) as proc:
            with pytest.raises(Unavailable) as failed:
                await caller.call(dreamer_stub(proc["grpc"]).Run, dreamer_pb2.DreamRunRequest(),
                                  ctx)
            runs = (await caller.call(dreamer_stub(proc["grpc"]).Runs,
                                      dreamer_pb2.DreamRunsRequest(), ctx)).runs
        assert "entries stay pending" in failed.value.message
        assert runs[0].status == "failed" and "ConnectError" in runs[0].error_detail
        assert await admin_fetchval(admin_dsn, "SELECT count(*) FROM dreamer.quarantine "
                                    "WHERE namespace = $1", ns) == 0
        await pending(client, 2)

        llm, llm_port = start_fake("fake_llm", [], tmp_path)
        try:
            await eventually(lambda: _up(llm_port), 30, "fake LLM")
            back = overrides | {"ENGRAM_LLM_BASE_URL": f"http://127.0.0.1:{llm_port}"}
            with service_process(stack, "dreamer", back, tmp_path) as proc:
                run = (await caller.call(dreamer_stub(proc["grpc"]).Run,
                                         dreamer_pb2.DreamRunRequest(), ctx)).run
            assert (run.status, run.entries, run.facts_written, run.quarantined) == (
                "committed", 2, 2, 0)
        finally:
            llm.kill()
            llm.wait(10)


async def _up(port: int) -> bool:
    try:
        async with httpx.AsyncClient() as http:
            await http.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={})
        return True
    except httpx.HTTPError:
        return False


async def test_graph_link_proposals_are_reviewed_and_never_reproposed(stack: Stack):
    ns, token = principal(stack)
    reviewer = stack.principals.create(f"rv-{ns}", "reviewer", [ns])
    async with mcp_client(stack.mcp_url, token) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        await call(client, "fact_set", {"entity": "postgres", "attribute": "version",
                                        "value": "16"})
        await call(client, "memory_store", {"text": "orders-api uses Postgres."})
        await pending(client, 1)
        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["proposals"] == 1
        [item] = (await call(rev, "review_list", {"kind": "graph_link"}))["items"]
        assert item["summary"] == "link orders-api uses postgres"
        err = await call_error(client, "review_decide", {"item_id": item["id"],
                                                         "decision": "approve",
                                                         "reasoning": "looks right"})
        assert "reviewer role" in err
        rejected = await call(rev, "review_decide", {"item_id": item["id"],
                                                     "decision": "reject",
                                                     "reasoning": "we read, never write"})
        assert rejected["status"] == "rejected"
        await call(client, "memory_store", {"text": "orders-api uses Postgres (again)."})
        await call(client, "memory_store", {"text": "billing-api runs on Postgres."})
        await pending(client, 2)
        run = (await call(client, "dream", {"action": "run"}))["run"]
        # the billing link, and a merge of the two near-identical orders-api notes;
        # the rejected link is not proposed again
        assert run["proposals"] == 2
        assert len((await call(rev, "review_list", {"kind": "merge_entries"}))["items"]) == 1
        [item] = (await call(rev, "review_list", {"kind": "graph_link"}))["items"]
        assert item["summary"] == "link billing-api deployed_to postgres"
        await call(rev, "review_decide", {"item_id": item["id"], "decision": "approve",
                                          "reasoning": "yes"})
        walk = await call(client, "graph_neighbors", {"entity": "billing-api"})
        assert [(e["relation"], e["dst"], e["provenance"]) for e in walk["edges"]
                if not e.get("derived")] == [("deployed_to", "postgres", "inferred")]
        err = await call_error(rev, "dream", {"action": "rollback", "run_id": run["id"]})
        assert "proposals already decided" in err


async def test_forgetting_an_entry_forgets_the_facts_drawn_from_it(stack: Stack,
                                                                   admin_dsn: str):
    ns, token = principal(stack)
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "fact_set", {"entity": "kubernetes", "attribute": "version",
                                        "value": "1.31"})
        kept = await call(client, "memory_store", {"text": "ledger-api uses CockroachDB."})
        gone = await call(client, "memory_store", {"text": "ledger-api runs on Kubernetes."})
        await pending(client, 2)
        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["proposals"] == 1, "a graph link quoting the entry to be forgotten"
        assert len((await call(client, "fact_history", {"entity": "ledger-api"}))["facts"]) == 2
        await call(client, "memory_forget", {"entry_id": gone["id"], "reason": "wrong cluster"})

        async def forgotten() -> bool:
            facts = (await call(client, "fact_history", {"entity": "ledger-api"}))["facts"]
            return [f["value"] for f in facts] == ["CockroachDB"]
        await eventually(forgotten, 30, "the derived fact to be forgotten")
        assert kept["id"] != gone["id"]
        leftover = await admin_fetchval(
            admin_dsn, "SELECT count(*) FROM cortex.facts WHERE namespace = $1 "
            "AND value ILIKE '%kubernetes%'", ns)
        assert leftover == 0, "forgotten content does not survive as history"
        traces = await admin_fetchval(
            admin_dsn, "SELECT (SELECT count(*) FROM cortex.audit a WHERE namespace = $1 "
            "AND a::text ILIKE '%runs on kubernetes%') + (SELECT count(*) FROM cortex.journal "
            "j WHERE namespace = $1 AND j::text ILIKE '%kubernetes%') + (SELECT count(*) FROM "
            "dreamer.proposals p WHERE namespace = $1 AND p::text ILIKE '%runs on%')", ns)
        assert traces == 0, "nor in the cortex's audit and journal or the dreamer's proposals"
