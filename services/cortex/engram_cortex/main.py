"""Wiring only: settings -> migrations -> pool -> embedder client -> gRPC."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engram.v1 import cortex_pb2_grpc
from engram_kit import audit
from engram_kit.embedder_client import EmbedderClient, EmbeddingSpaceMismatch
from engram_kit.events import NatsLink
from engram_kit.grpc_client import Caller
from engram_kit.outbox import OutboxRelay
from engram_kit.runtime import run_until_signal
from engram_kit.service import run_database_service

from .facts import FactStore
from .graph import Graph
from .lesson_merge import LessonMerger
from .lessons import Lessons
from .merging import Merging
from .reads import FactReader
from .recall import Recall
from .review import Review
from .review_queue import ReviewQueue
from .servicer import CortexServicer
from .settings import CortexSettings
from .slots import SlotEditor
from .tags import TagRegistry
from .walk import WalkLimits
from .world import World

SCHEMA = "cortex"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(stop: asyncio.Event) -> None:
    s = CortexSettings()
    audit.use_key(s.audit_hmac_key.get_secret_value())
    caller = Caller(s.internal_token.get_secret_value())
    embedder = EmbedderClient(s.embedder_addr, caller, s.embed_timeout_s, s.embedding_model,
                              s.embedding_dimension, service="cortex")
    try:  # an embedder serving another space must not start mixing vectors in
        await embedder.verify(timeout_s=3.0)
    except EmbeddingSpaceMismatch as exc:
        raise SystemExit(f"cortex refuses to start: {exc}") from None

    link = NatsLink(s, name=s.service_name)

    def build(pool: object, readiness: object) -> tuple:
        # NATS is not a readiness gate: writes land while it is down (the
        # outbox holds their events); /health reports it.
        relay = OutboxRelay(pool, link, SCHEMA, s.service_name)
        readiness.info["nats_connected"] = lambda: link.connected
        reader, review = FactReader(pool, embedder, s), Review(pool)
        graph = Graph(pool, WalkLimits.of(s))
        knowledge = (World(pool, embedder, s), Lessons(pool, embedder, s, relay.notify),
                     TagRegistry(pool), ReviewQueue(pool, review))
        servicer = CortexServicer(FactStore(pool, embedder, s, relay.notify), reader,
                                  SlotEditor(pool, embedder, s), review, graph,
                                  Recall(pool, reader, graph, s.recall_max_seeds), knowledge,
                                  (Merging(pool), LessonMerger(pool, s)))
        readiness.info["embedding_space"] = lambda: embedder.state
        return (lambda server: cortex_pb2_grpc.add_CortexServiceServicer_to_server(
            servicer, server)), [embedder.keep_connected, link.run, relay.run]

    try:
        await run_database_service(s, stop, SCHEMA, MIGRATIONS, build)
    finally:
        await embedder.close()


def main() -> None:
    run_until_signal(amain)
