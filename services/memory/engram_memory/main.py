"""Wiring only: settings -> migrations -> pool -> clients -> gRPC server."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import grpc

from engram.v1 import memory_pb2_grpc
from engram_kit import audit
from engram_kit.audit_service import add_audit_service
from engram_kit.db import add_database_checks, open_service_database
from engram_kit.embedder_client import EmbedderClient, EmbeddingSpaceMismatch
from engram_kit.events import NatsLink
from engram_kit.grpc_client import Caller
from engram_kit.grpc_server import serve
from engram_kit.health import Readiness
from engram_kit.logging import configure_logging
from engram_kit.outbox import OutboxRelay
from engram_kit.recent_counts import RecentCounts
from engram_kit.runtime import run_until_signal
from engram_kit.service import Background

from . import repo
from .column_check import EmbeddingColumnCheck
from .consolidation import Consolidation
from .decay import Decay, UseMarks
from .documents import Documents
from .episodes import Episodes
from .erasure import Erasure
from .lifecycle import Lifecycle
from .pdf_worker import PdfExtractor
from .reembed import ReembedSweep
from .search import Searcher
from .service import MemoryService
from .servicer import MemoryDeps, MemoryServicer
from .sessions import Sessions
from .settings import MemorySettings
from .stats import MemoryStats

SCHEMA = "memory"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(s: MemorySettings, stop: asyncio.Event) -> None:
    audit.use_key(s.audit_hmac_key.get_secret_value())
    configure_logging(s.service_name, s.log_level)
    pool = await open_service_database(s, SCHEMA, session_settings=repo.VECTOR_SCAN)
    caller = Caller(s.internal_token.get_secret_value())
    embedder = EmbedderClient(s.embedder_addr, caller, s.embed_timeout_s, s.embedding_model,
                              s.embedding_dimension)
    column = EmbeddingColumnCheck(pool, s.embedding_dimension)
    await column.at_start()
    try:  # an embedder serving another space must not start mixing vectors in
        await embedder.verify(timeout_s=3.0)
    except EmbeddingSpaceMismatch as exc:
        raise SystemExit(f"memory refuses to start: {exc}") from None
    link = NatsLink(s, name=s.service_name)
    relay = OutboxRelay(pool, link, SCHEMA, s.service_name)
    sweep = ReembedSweep(pool, embedder, s.reembed_interval_s)
    service = MemoryService(pool, embedder, s, on_outbox_write=relay.notify,
                            on_vector_queued=sweep.notify)
    pdf = PdfExtractor(s)
    await pdf.warm()
    documents = Documents(pool, embedder, s, pdf)
    uses = UseMarks(pool)
    searcher = Searcher(pool, embedder, s, documents, uses)
    sessions = Sessions(pool, s.session_idle_s, s.session_sweep_s)

    readiness = Readiness(s.service_name)
    add_database_checks(readiness, pool, SCHEMA, MIGRATIONS)
    readiness.add("embedding_column", column.check)
    # NATS is not a readiness gate: writes must land while it is down (the
    # outbox holds events). Its state is reported on /health instead.
    readiness.info["nats_connected"] = lambda: link.connected
    readiness.info["embedding_space"] = lambda: embedder.state

    def register(server: grpc.aio.Server) -> None:
        memory_pb2_grpc.add_MemoryServiceServicer_to_server(
            MemoryServicer(MemoryDeps(
                service=service, searcher=searcher, lifecycle=Lifecycle(service, uses),
                episodes=Episodes(pool, s.session_reopen_s), documents=documents,
                decay=Decay(pool), sessions=sessions, erasure=Erasure(pool, s),
                consolidation=Consolidation(service),
                stats=MemoryStats(pool, RecentCounts()))), server)
        add_audit_service(server, pool, SCHEMA)

    try:
        jobs: Background = [link.run, relay.run, sweep.run, uses.run, sessions.run,
                            embedder.keep_connected]
        await serve(s, register, readiness, stop, background=jobs)
    finally:
        await embedder.close()
        await pool.close()


def main() -> None:
    # Its fields come from the environment, which pyright cannot see.
    s = MemorySettings()  # pyright: ignore[reportCallIssue]
    run_until_signal(partial(amain, s), s.event_loop)
