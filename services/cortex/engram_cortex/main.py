"""Wiring only.

The cortex RPCs are defined in proto/engram/v1/cortex.proto; until issue #4
builds them each answers UNIMPLEMENTED with a message naming the issue, and
the gateway advertises no tool that needs them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engram.v1 import cortex_pb2_grpc
from engram_kit.grpc_server import unimplemented
from engram_kit.runtime import run_until_signal
from engram_kit.service import run_database_service

from .settings import CortexSettings

SCHEMA = "cortex"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(stop: asyncio.Event) -> None:
    servicer = unimplemented(cortex_pb2_grpc.CortexServiceServicer, "cortex", "#4")

    def build(pool: object, readiness: object) -> tuple:
        return (lambda server: cortex_pb2_grpc.add_CortexServiceServicer_to_server(
            servicer, server)), []

    await run_database_service(CortexSettings(), stop, SCHEMA, MIGRATIONS, build)


def main() -> None:
    run_until_signal(amain)
