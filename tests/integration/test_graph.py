"""The graph and multi-hop recall through MCP, including the lifecycle law:
a superseded fact or a retired edge never shows up as current on a walk."""

from __future__ import annotations

import time
import uuid

import asyncpg

from engram_runner.stack import Stack

from ..helpers import call, call_error, mcp_client


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


async def dense_graph(admin_dsn: str, ns: str, prefix: str, nodes: int) -> list[str]:
    """Every pair of `nodes` entities joined by depends_on (transitive): n²/2
    edges, written as admin straight into the tables."""
    names = [f"{prefix}-{i:03d}" for i in range(nodes)]
    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.executemany("INSERT INTO cortex.entities (namespace, name) VALUES ($1, $2)",
                               [(ns, n) for n in names])
        await conn.executemany(
            "INSERT INTO cortex.edges (namespace, id, src, relation, dst, provenance,"
            " writer_principal) VALUES ($1, $2, $3, 'depends_on', $4, 'asserted', 'test')",
            [(ns, uuid.uuid4(), a, b) for i, a in enumerate(names) for b in names[i + 1:]])
    finally:
        await conn.close()
    return names


async def test_walk_of_a_dense_graph_is_bounded(stack: Stack, admin_dsn: str):
    """A walk over ~11k edges answers in time with capped counts and says it
    was truncated (the old walk was quadratic in the edges it met)."""
    t = uuid.uuid4().hex[:6]
    ns = f"dense-{t}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    names = await dense_graph(admin_dsn, ns, f"n{t}", 150)
    async with mcp_client(stack.mcp_url, token) as client:
        started = time.monotonic()
        walk = await call(client, "graph_neighbors", {"entity": names[0], "depth": 3,
                                                      "namespace": ns})
        took = time.monotonic() - started
        recalled = await call(client, "memory_recall", {"query": f"{names[0]} {names[1]}",
                                                        "hops": 3, "namespace": ns})
    assert took < 8.0, f"the walk took {took:.1f} s"
    assert walk["truncated"] is True and recalled["truncated"] is True
    stored = [e for e in walk["edges"] if not e.get("derived")]
    derived = [e for e in walk["edges"] if e.get("derived")]
    assert 0 < len(stored) <= 500 and len(derived) <= 500
    assert len(walk["nodes"]) <= 200
    assert len([e for e in recalled["edges"] if not e.get("derived")]) <= 500


async def test_recall_caps_its_seeds(stack: Stack, admin_dsn: str):
    t = uuid.uuid4().hex[:6]
    ns = f"seeds-{t}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    names = [f"s{t}-{i:03d}" for i in range(150)]
    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.executemany("INSERT INTO cortex.entities (namespace, name) VALUES ($1, $2)",
                               [(ns, n) for n in names])
    finally:
        await conn.close()
    async with mcp_client(stack.mcp_url, token) as client:
        recalled = await call(client, "memory_recall", {"query": " ".join(names), "hops": 1,
                                                        "namespace": ns})
    assert 0 < len(recalled["seeds"]) <= 20
    assert set(recalled["seeds"]) <= set(names)
    assert recalled["truncated"] is True
