"""Cortex serves four gRPC services from one process, on one port: facts,
graph, knowledge and review, each answering its own RPCs."""

from __future__ import annotations

import grpc

from engram.v1 import cortex_pb2 as pb
from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit.context import CallerContext
from engram_runner.stack import Stack


async def test_each_cortex_service_answers_on_the_one_port(stack: Stack):
    port = stack.topology.services["cortex"].ports[8752]
    md = CallerContext(principal="t", namespace="default").to_metadata(
        stack.secrets["ENGRAM_INTERNAL_TOKEN"])
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        facts = rpc.CortexFactsStub(channel)
        written = await facts.SetFact(pb.SetFactRequest(
            entity="svc-split", attribute="owner", value="ada",
            evidence=pb.Evidence(quote="ada owns svc-split")), metadata=md, timeout=20)
        got = await facts.GetFact(pb.GetFactRequest(entity="svc-split", attribute="owner"),
                                  metadata=md, timeout=10)
        relations = await rpc.CortexGraphStub(channel).ListRelations(
            pb.ListRelationsRequest(), metadata=md, timeout=10)
        brief = await rpc.CortexKnowledgeStub(channel).KnowledgeBriefing(
            pb.KnowledgeBriefingRequest(), metadata=md, timeout=10)
        conflicts = await rpc.CortexReviewStub(channel).ListConflicts(
            pb.ListConflictsRequest(), metadata=md, timeout=10)
    assert written.action in ("insert", "confirm")
    assert [f.value for f in got.current] == ["ada"]
    assert "depends_on" in {r.name for r in relations.relations}
    assert brief.rules_total >= 0 and conflicts is not None
