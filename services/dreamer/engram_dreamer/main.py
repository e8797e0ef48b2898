"""Wiring only: settings -> schema service -> event consumer + gRPC server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg

from engram.v1 import dreamer_pb2_grpc
from engram_kit.events import ConsumerSpec, NatsLink, run_consumer
from engram_kit.health import Readiness
from engram_kit.runtime import run_until_signal
from engram_kit.service import run_database_service

from .intake import EventIntake
from .servicer import DreamerServicer
from .settings import DreamerSettings

SCHEMA = "dreamer"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(stop: asyncio.Event) -> None:
    s = DreamerSettings()
    link = NatsLink(s, name=s.service_name)
    spec = ConsumerSpec(durable=s.consumer_durable, filter_subject=s.consumer_filter)

    def build(pool: asyncpg.Pool, readiness: Readiness) -> tuple:
        intake = EventIntake(pool, s.consumer_durable)

        async def consumer_bound() -> bool:
            return intake.connected and link.connected

        async def consume(stop: asyncio.Event) -> None:
            await run_consumer(link, spec, intake.handle, stop, on_bound=intake.set_connected)

        readiness.add("nats_consumer", consumer_bound)
        readiness.info["extractor"] = s.extractor
        servicer = DreamerServicer(pool, intake, s)
        return (lambda server: dreamer_pb2_grpc.add_DreamerServiceServicer_to_server(
            servicer, server)), [link.run, consume]

    await run_database_service(s, stop, SCHEMA, MIGRATIONS, build, vector=False)


def main() -> None:
    run_until_signal(amain)
