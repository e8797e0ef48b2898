"""Wiring only: settings -> migrations -> pool -> embedder client -> gRPC."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import asyncpg
import grpc

from engram.v1 import cortex_pb2_grpc as rpc
from engram_kit import audit
from engram_kit.audit_service import add_audit_service
from engram_kit.embedder_client import EmbedderClient, EmbeddingSpaceMismatch
from engram_kit.events import NatsLink
from engram_kit.grpc_client import Caller
from engram_kit.health import Readiness
from engram_kit.outbox import OutboxRelay
from engram_kit.recent_counts import RecentCounts
from engram_kit.runtime import run_until_signal
from engram_kit.service import Background, Register, run_database_service

from .erasure import Erasure
from .facts import FactStore
from .freshness import Freshness
from .graph import Graph
from .lesson_merge import LessonMerger
from .lessons import Lessons
from .merging import Merging
from .reads import FactReader
from .recall import Recall
from .retraction import Retraction
from .review import Review
from .review_queue import ReviewQueue
from .servicer_facts import FactsDeps, FactsServicer
from .servicer_graph import GraphDeps, GraphServicer
from .servicer_knowledge import KnowledgeDeps, KnowledgeServicer
from .servicer_lifecycle import LifecycleDeps, LifecycleServicer
from .servicer_review import ReviewDeps, ReviewServicer
from .settings import CortexSettings
from .slots import SlotEditor
from .stats import Stats
from .tags import TagRegistry
from .walk import WalkLimits
from .world import World

SCHEMA = "cortex"
MIGRATIONS = Path(__file__).parent / "migrations"


def register(servicers: tuple[FactsServicer, GraphServicer, KnowledgeServicer,
                              ReviewServicer, LifecycleServicer],
             pool: asyncpg.Pool, server: grpc.aio.Server) -> None:
    """The five cortex services and the audit share one server (one port, one pool)."""
    facts, graph, knowledge, review, lifecycle = servicers
    rpc.add_CortexFactsServicer_to_server(facts, server)
    rpc.add_CortexGraphServicer_to_server(graph, server)
    rpc.add_CortexKnowledgeServicer_to_server(knowledge, server)
    rpc.add_CortexReviewServicer_to_server(review, server)
    rpc.add_CortexLifecycleServicer_to_server(lifecycle, server)
    add_audit_service(server, pool, SCHEMA)


async def amain(s: CortexSettings, stop: asyncio.Event) -> None:
    audit.use_key(s.audit_hmac_key.get_secret_value())
    caller = Caller(s.internal_token.get_secret_value())
    embedder = EmbedderClient(s.embedder_addr, caller, s.embed_timeout_s, s.embedding_model,
                              s.embedding_dimension, service="cortex")
    try:  # an embedder serving another space must not start mixing vectors in
        await embedder.verify(timeout_s=3.0)
    except EmbeddingSpaceMismatch as exc:
        raise SystemExit(f"cortex refuses to start: {exc}") from None

    link = NatsLink(s, name=s.service_name)

    def build(pool: asyncpg.Pool, readiness: Readiness) -> tuple[Register, Background]:
        # NATS is not a readiness gate: writes land while it is down (the
        # outbox holds their events); /health reports it.
        relay = OutboxRelay(pool, link, SCHEMA, s.service_name)
        readiness.info["nats_connected"] = lambda: link.connected
        reader, review = FactReader(pool, embedder, s), Review(pool)
        world = World(pool, embedder, s)
        graph = Graph(pool, WalkLimits.of(s))
        recalls = RecentCounts()
        servicers = (
            FactsServicer(FactsDeps(
                pool=pool, facts=FactStore(pool, embedder, s, relay.notify), reader=reader,
                slots=SlotEditor(pool, embedder, s), review=review,
                freshness=Freshness(pool), world=world)),
            GraphServicer(GraphDeps(
                graph=graph, recall=Recall(pool, reader, graph, s.recall_max_seeds),
                recalls=recalls)),
            KnowledgeServicer(KnowledgeDeps(
                reader=reader, world=world,
                lessons=Lessons(pool, embedder, s, relay.notify),
                lesson_merger=LessonMerger(pool, s))),
            ReviewServicer(ReviewDeps(
                review=review, queue=ReviewQueue(pool, review), tags=TagRegistry(pool),
                merging=Merging(pool), stats=Stats(pool, recalls))),
            LifecycleServicer(LifecycleDeps(retraction=Retraction(pool, s),
                                            erasure=Erasure(pool, s))))
        readiness.info["embedding_space"] = lambda: embedder.state
        jobs: Background = [embedder.keep_connected, link.run, relay.run]
        return (lambda server: register(servicers, pool, server)), jobs

    try:
        await run_database_service(s, stop, SCHEMA, MIGRATIONS, build)
    finally:
        await embedder.close()


def main() -> None:
    # Its fields come from the environment, which pyright cannot see.
    s = CortexSettings()  # pyright: ignore[reportCallIssue]
    run_until_signal(partial(amain, s), s.event_loop)
