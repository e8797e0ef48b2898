"""Wiring only.

The board RPCs are defined in proto/engram/v1/coordination.proto; until
issue #7 builds them each answers UNIMPLEMENTED with a message naming the
issue, and the gateway advertises no board tool."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engram.v1 import coordination_pb2_grpc as rpc
from engram_kit.grpc_server import unimplemented
from engram_kit.runtime import run_until_signal
from engram_kit.service import run_database_service

from .settings import CoordinationSettings

SCHEMA = "coordination"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(stop: asyncio.Event) -> None:
    servicer = unimplemented(rpc.CoordinationServiceServicer, "coordination", "#7")

    def build(pool: object, readiness: object) -> tuple:
        return (lambda server: rpc.add_CoordinationServiceServicer_to_server(
            servicer, server)), []

    await run_database_service(CoordinationSettings(), stop, SCHEMA, MIGRATIONS, build)


def main() -> None:
    run_until_signal(amain)
