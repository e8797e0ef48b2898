"""Wiring only: settings -> migrations -> pool -> gRPC server.

The board RPCs are defined in proto/engram/v1/coordination.proto; until issue #7
builds them each answers UNIMPLEMENTED with a message naming the issue, and
the gateway advertises no tool that needs them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engram.v1 import coordination_pb2_grpc
from engram_kit.db import add_database_checks, open_service_database
from engram_kit.grpc_server import serve, unimplemented
from engram_kit.health import Readiness
from engram_kit.logging import configure_logging
from engram_kit.runtime import run_until_signal

from .settings import CoordinationSettings

SCHEMA = "coordination"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(stop: asyncio.Event) -> None:
    s = CoordinationSettings()
    configure_logging(s.service_name, s.log_level)
    pool = await open_service_database(s, SCHEMA, MIGRATIONS)
    readiness = Readiness(s.service_name)
    add_database_checks(readiness, pool, SCHEMA, MIGRATIONS)
    servicer = unimplemented(
        coordination_pb2_grpc.CoordinationServiceServicer, "coordination", "#7"
    )

    def register(server: object) -> None:
        coordination_pb2_grpc.add_CoordinationServiceServicer_to_server(servicer, server)

    try:
        await serve(s, register, readiness, stop)
    finally:
        await pool.close()


def main() -> None:
    run_until_signal(amain)
