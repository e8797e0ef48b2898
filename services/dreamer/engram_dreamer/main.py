"""Wiring only: settings -> migrations -> pool -> consumer + gRPC server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engram.v1 import dreamer_pb2_grpc
from engram_kit.db import add_database_checks, open_service_database
from engram_kit.events import ConsumerSpec, NatsLink, run_consumer
from engram_kit.grpc_server import serve
from engram_kit.health import Readiness
from engram_kit.logging import configure_logging
from engram_kit.runtime import run_until_signal

from .intake import EventIntake
from .servicer import DreamerServicer
from .settings import DreamerSettings

SCHEMA = "dreamer"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(stop: asyncio.Event) -> None:
    s = DreamerSettings()
    configure_logging(s.service_name, s.log_level)
    pool = await open_service_database(s, SCHEMA, MIGRATIONS, vector=False)
    link = NatsLink(s, name=s.service_name)
    intake = EventIntake(pool, s.consumer_durable)
    spec = ConsumerSpec(durable=s.consumer_durable, filter_subject=s.consumer_filter)

    readiness = Readiness(s.service_name)
    add_database_checks(readiness, pool, SCHEMA, MIGRATIONS)

    async def consumer_bound() -> bool:
        return intake.connected and link.connected

    readiness.add("nats_consumer", consumer_bound)
    readiness.info["extractor"] = s.extractor

    async def consume(stop: asyncio.Event) -> None:
        await run_consumer(link, spec, intake.handle, stop, on_bound=intake.set_connected)

    def register(server: object) -> None:
        dreamer_pb2_grpc.add_DreamerServiceServicer_to_server(
            DreamerServicer(pool, intake, s), server
        )

    try:
        await serve(s, register, readiness, stop, background=[link.run, consume])
    finally:
        await pool.close()


def main() -> None:
    run_until_signal(amain)
