"""Cortex events feed the dreamer: a fact write marks its entity and an
outcome marks the lessons; the next pass proposes merges of near-duplicate
entities (a reviewer's approval makes one an alias and moves its facts, a
clash refuses, a rejection is never proposed again) and merges
near-identical lessons (a correction's text wins; rollback restores both)."""

from __future__ import annotations

import uuid

import httpx
from prometheus_client.parser import text_string_to_metric_families

from engram_cortex.merging import COMMON_PAIR, entity_pairs
from engram_cortex.rows import EntityProfileRow
from engram_runner.stack import Stack

from ..helpers import call, call_error, eventually, mcp_client


def dreamer_metric(stack: Stack, name: str, **labels: str) -> float:
    base = stack.topology.services["dreamer"].ready_url.rsplit("/", 1)[0]
    text = httpx.get(f"{base}/metrics", timeout=5).text
    return sum(s.value for family in text_string_to_metric_families(text)
               for s in family.samples
               if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def principals(stack: Stack) -> tuple[str, str, str]:
    ns = f"merge-{uuid.uuid4().hex[:6]}"
    return (ns, stack.principals.create(f"a-{ns}", "agent", [ns]),
            stack.principals.create(f"r-{ns}", "reviewer", [ns]))


async def marks(client, n: int) -> None:
    async def check() -> bool:
        return (await call(client, "dream", {"action": "status"}))["pending_marks"] >= n
    await eventually(check, 30, f"{n} cortex marks")


async def fact(client, entity: str, attribute: str, value: str) -> dict:
    return await call(client, "fact_set", {"entity": entity, "attribute": attribute,
                                           "value": value})


async def test_near_duplicate_entities_are_proposed_and_merged(stack: Stack):
    ns, token, reviewer = principals(stack)
    async with mcp_client(stack.mcp_url, token) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        await fact(client, "billing-api", "language", "Go")
        await fact(client, "billing-api", "owner", "team payments")
        await fact(client, "billing_api", "owner", "team payments")
        moved = await fact(client, "billing_api", "port", "8443")
        await fact(client, "search-svc", "language", "Rust")
        await fact(client, "search-api", "language", "Go")  # similar name, nothing shared
        await marks(client, 4)
        proposed = dreamer_metric(stack, "engram_dream_proposals_total", kind="merge_entity")
        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["status"] == "committed" and run["proposals"] == 1, run
        assert dreamer_metric(stack, "engram_dream_proposals_total",
                              kind="merge_entity") == proposed + 1
        assert (await call(client, "dream", {"action": "status"}))["pending_marks"] == 0
        [item] = (await call(rev, "review_list", {"kind": "merge_entity"}))["items"]
        assert item["summary"] == "merge billing_api into billing-api"
        assert "case and punctuation" in item["evidence_quote"]
        assert (await call(rev, "review_list", {"kind": "graph_link"}))["items"] == []
        err = await call_error(client, "review_decide", {"item_id": item["id"],
                                                         "decision": "approve",
                                                         "reasoning": "same service"})
        assert "reviewer role" in err
        done = await call(rev, "review_decide", {"item_id": item["id"], "decision": "approve",
                                                 "reasoning": "same service"})
        assert done["status"] == "approved"
        port = await call(client, "fact_get", {"entity": "billing_api", "attribute": "port"})
        assert [f["id"] for f in port["current"]] == [moved["fact"]["id"]]
        owner = await call(client, "fact_get", {"entity": "billing-api", "attribute": "owner",
                                                "verbose": True})
        assert len(owner["current"]) == 1, "the duplicate value was retired"
        history = await call(client, "fact_history", {"entity": "billing-api"})
        assert {f["attribute"] for f in history["facts"]} == {"language", "owner", "port"}

        # Writing through the old name now lands on the kept entity: no new proposal.
        written = await fact(client, "billing_api", "version", "2")
        assert written["fact"]["entity"] == "billing-api"
        await marks(client, 1)
        again = (await call(client, "dream", {"action": "run"}))["run"]
        assert again["proposals"] == 0


async def test_a_clashing_merge_is_refused_and_a_rejected_one_never_returns(stack: Stack):
    ns, token, reviewer = principals(stack)
    async with mcp_client(stack.mcp_url, token) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        await fact(client, "ledger.db", "engine", "postgres")
        await fact(client, "ledger.db", "region", "eu-west-1")
        await fact(client, "ledger-db", "region", "us-east-1")
        await marks(client, 2)
        assert (await call(client, "dream", {"action": "run"}))["run"]["proposals"] == 1
        [item] = (await call(rev, "review_list", {"kind": "merge_entity"}))["items"]
        err = await call_error(rev, "review_decide", {"item_id": item["id"],
                                                      "decision": "approve", "reasoning": "x"})
        assert "needs these slots settled first: region" in err
        assert "eu-west-1" in err and "us-east-1" in err
        [still] = (await call(rev, "review_list", {"kind": "merge_entity"}))["items"]
        assert still["id"] == item["id"], "a refused approval leaves the proposal open"
        await call(rev, "review_decide", {"item_id": item["id"], "decision": "reject",
                                          "reasoning": "two databases"})
        await fact(client, "ledger-db", "engine", "postgres")
        await marks(client, 1)
        assert (await call(client, "dream", {"action": "run"}))["run"]["proposals"] == 0
        assert (await call(rev, "review_list", {"kind": "merge_entity"}))["items"] == []


async def test_near_identical_lessons_merge_and_roll_back(stack: Stack):
    ns, token, reviewer = principals(stack)
    task = "deploying the billing service"
    async with mcp_client(stack.mcp_url, token) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        for _ in range(2):
            success = await call(client, "outcome_record", {
                "task": task, "outcome": "success",
                "detail": "ran the database migrations before deploying"})
        correction = await call(client, "outcome_record", {
            "task": task, "outcome": "correction",
            "detail": "run the database migrations before deploying"})
        ids = {success["lesson"]["id"], correction["lesson"]["id"]}
        assert len(ids) == 2
        await marks(client, 1)
        merged = dreamer_metric(stack, "engram_dream_lessons_merged_total")
        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["counts"]["lessons_merged"] == 1, run
        assert dreamer_metric(stack, "engram_dream_lessons_merged_total") == merged + 1
        found = await call(client, "lesson_search", {"query": "database migrations deploy"})
        [lesson] = [x for x in found["lessons"] if x["id"] in ids]
        assert lesson["id"] == correction["lesson"]["id"], "a correction outranks a success"
        assert lesson["signals"] == 3

        # A rollback needs the erase grant: the reviewer's.
        rolled = await call(rev, "dream", {"action": "rollback", "run_id": run["id"]})
        assert rolled["run"]["status"] == "rolled_back"
        found = await call(client, "lesson_search", {"query": "database migrations deploy"})
        assert {x["id"] for x in found["lessons"]} >= ids
        assert (await call(client, "dream", {"action": "status"}))["pending_marks"] == 1


async def test_one_value_under_two_attribute_names_is_proposed_and_retracted(stack: Stack):
    ns, token, reviewer = principals(stack)
    async with mcp_client(stack.mcp_url, token) as client, \
            mcp_client(stack.mcp_url, reviewer) as rev:
        kept = await fact(client, "payments-db", "owner", "team ledger")
        await fact(client, "payments-db", "owned_by", "Team Ledger")
        await fact(client, "payments-db", "region", "eu-west-1")
        await fact(client, "payments-db", "backup_region", "eu-west-1")  # different facts
        await fact(client, "payments-db", "replicas", "3")
        await fact(client, "payments-db", "max_replicas", "3")  # numbers are not proposed
        await marks(client, 1)
        run = (await call(client, "dream", {"action": "run"}))["run"]
        assert run["proposals"] == 1, run
        [item] = (await call(rev, "review_list", {"kind": "merge_fact"}))["items"]
        assert item["summary"] == ("merge payments-db.owned_by into payments-db.owner "
                                   "(both 'team ledger')")
        await call(rev, "review_decide", {"item_id": item["id"], "decision": "approve",
                                          "reasoning": "one owner field"})
        gone = await call(client, "fact_get", {"entity": "payments-db",
                                               "attribute": "owned_by"})
        assert gone["current"] == []
        owner = await call(client, "fact_get", {"entity": "payments-db", "attribute": "owner"})
        assert [f["id"] for f in owner["current"]] == [kept["fact"]["id"]]


def test_entity_pairs_compare_only_plausible_partners():
    def profile(name: str, *pairs: str) -> EntityProfileRow:
        return EntityProfileRow(name, len(pairs), list(pairs))

    crowd = [profile(f"svc-{i}", "status=active") for i in range(COMMON_PAIR + 1)]
    profiles = [profile("orders-api", "status=active", "port=8080", "lang=go"),
                profile("orders-app", "status=active", "port=8080"),  # similar, shares port
                profile("orders-apx", "status=active"),  # similar, shares only a common pair
                profile("Orders_API".lower(), "owner=team-a"),  # same squashed name
                *crowd]
    pairs = {(p.keep, p.merge): p.reason for p in entity_pairs(profiles, {"orders-api"})}
    assert pairs == {("orders-api", "orders-app"): "similar names with the same port",
                     ("orders-api", "orders_api"):
                         "the same name apart from case and punctuation"}
