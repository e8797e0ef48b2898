"""Wiring only: settings -> migrations -> pool -> NATS -> gRPC server."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import asyncpg
import grpc

from engram.v1 import coordination_pb2_grpc as rpc
from engram_kit import audit
from engram_kit.audit_service import add_audit_service
from engram_kit.events import NatsLink
from engram_kit.health import Readiness
from engram_kit.runtime import periodically, run_until_signal
from engram_kit.service import Background, Register, run_database_service

from .board import HintPublisher
from .leases import Leases
from .mail import Mail
from .presence import Presence
from .servicer import CoordinationServicer
from .settings import CoordinationSettings
from .sweep import BoardSweep
from .toolsets import Toolsets

SCHEMA = "coordination"
MIGRATIONS = Path(__file__).parent / "migrations"


async def amain(settings: CoordinationSettings, stop: asyncio.Event) -> None:
    audit.use_key(settings.audit_hmac_key.get_secret_value())
    link = NatsLink(settings, name=settings.service_name)
    hints = HintPublisher(link, settings.hint_subject_prefix)

    def build(pool: asyncpg.Pool, readiness: Readiness) -> tuple[Register, Background]:
        leases = Leases(pool, settings, hints)
        servicer = CoordinationServicer(settings, Presence(pool, settings), leases,
                                        Mail(pool, settings, hints), pool, Toolsets(pool))
        tidy = BoardSweep(pool, settings)
        # NATS only carries live hints; the board works without it.
        readiness.info["nats_connected"] = lambda: link.connected

        jobs: Background = [
            link.run,
            periodically("lease sweep", leases.sweep_once, settings.lease_sweep_interval_s),
            periodically("board sweep", tidy.sweep_once, settings.board_sweep_interval_s)]
        def register(server: grpc.aio.Server) -> None:
            rpc.add_CoordinationServiceServicer_to_server(servicer, server)
            # agent_id is hashed into this service's chain
            add_audit_service(server, pool, SCHEMA, ("agent_id",))

        return register, jobs

    await run_database_service(settings, stop, SCHEMA, MIGRATIONS, build)


def main() -> None:
    # Its fields come from the environment, which pyright cannot see.
    settings = CoordinationSettings()  # pyright: ignore[reportCallIssue]
    run_until_signal(partial(amain, settings), settings.event_loop)
