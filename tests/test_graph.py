"""The graph and multi-hop recall through MCP, including the lifecycle law:
a superseded fact or a retired edge never shows up as current on a walk."""

from __future__ import annotations

import uuid

from engram_cli.stack import Stack

from .helpers import call, call_error, mcp_client


async def test_walk_paths_derived_edges_and_corrections(stack: Stack, agent_token: str):
    t = uuid.uuid4().hex[:6]
    api, db, host, team = f"api-{t}", f"db-{t}", f"host-{t}", f"team-{t}"
    async with mcp_client(stack.mcp_url, agent_token) as client:
        assert (await call(client, "graph_relate", {"src": api, "relation": "depends_on",
                                                    "dst": db}))["action"] == "insert"
        assert (await call(client, "graph_relate", {"src": api, "relation": "depends_on",
                                                    "dst": db}))["action"] == "confirm"
        await call(client, "graph_relate", {"src": db, "relation": "depends_on", "dst": host})
        owned = await call(client, "graph_relate", {"src": team, "relation": "owns",
                                                    "dst": api})
        assert owned["edge"]["src"] == api and owned["edge"]["relation"] == "owned_by"
        await call(client, "fact_set", {"entity": db, "attribute": "engine", "value": "MySQL"})
        await call(client, "fact_set", {"entity": db, "attribute": "engine",
                                        "value": "PostgreSQL", "replaces": True})

        walk = await call(client, "graph_neighbors", {"entity": api, "depth": 2,
                                                      "to": host})
        depth = {n["entity"]: n["depth"] for n in walk["nodes"]}
        assert depth == {api: 0, db: 1, team: 1, host: 2}
        assert walk["path"] == [api, db, host]
        [db_node] = [n for n in walk["nodes"] if n["entity"] == db]
        assert [f["value"] for f in db_node["facts"]] == ["PostgreSQL"]
        derived = {(e["src"], e["relation"], e["dst"]) for e in walk["edges"]
                   if e.get("derived")}
        assert (db, "dependency_of", api) in derived
        assert (api, "depends_on", host) in derived, "depends_on is transitive"

        recalled = await call(client, "memory_recall", {"query": f"what does {api} run on",
                                                        "hops": 1})
        assert api in recalled["seeds"] and not recalled["low_confidence"]
        values = [f["value"] for f in recalled["facts"] if f["entity"] == db]
        assert values == ["PostgreSQL"], "the superseded engine is never recalled"

        await call(client, "graph_unrelate", {"src": db, "relation": "depends_on", "dst": host})
        walk = await call(client, "graph_neighbors", {"entity": api, "depth": 3})
        assert host not in {n["entity"] for n in walk["nodes"]}
        err = await call_error(client, "graph_unrelate", {"src": db, "relation": "depends_on",
                                                          "dst": host})
        assert "no live edge" in err


async def test_vocabulary_is_closed_and_reviewer_extends_it(stack: Stack, agent_token: str):
    t = uuid.uuid4().hex[:6]
    reviewer = stack.principals.create(f"gr-{t}", "reviewer", ["default"])
    async with mcp_client(stack.mcp_url, agent_token) as client:
        err = await call_error(client, "graph_relate", {"src": "a", "relation": "likes",
                                                        "dst": "b"})
        assert "unknown relation 'likes'" in err and "relation_add" in err
        err = await call_error(client, "graph_relate", {"src": "a", "relation": "uses",
                                                        "dst": "A"})
        assert "two different entities" in err
        err = await call_error(client, "relation_add", {"name": f"mentors_{t}",
                                                        "inverse": f"mentored_by_{t}"})
        assert "reviewer role" in err
        async with mcp_client(stack.mcp_url, reviewer) as rev:
            added = await call(rev, "relation_add", {"name": f"mentors_{t}",
                                                     "inverse": f"mentored_by_{t}"})
            assert f"mentors_{t}" in added["relations"]
        edge = await call(client, "graph_relate", {"src": f"ann-{t}",
                                                   "relation": f"mentored_by_{t}",
                                                   "dst": f"bo-{t}"})
        assert edge["edge"]["src"] == f"bo-{t}" and edge["edge"]["relation"] == f"mentors_{t}"


async def test_recall_says_when_it_is_unsure(stack: Stack, agent_token: str):
    async with mcp_client(stack.mcp_url, agent_token) as client:
        got = await call(client, "memory_recall", {"query": "zqxv wplk frobnicate", "hops": 2})
        assert got["low_confidence"] is True
        err = await call_error(client, "graph_neighbors", {"entity": "x", "depth": 4})
        assert "depth" in err
