"""Wiring only: settings -> migrations -> pool -> NATS -> gRPC server."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import asyncpg

from engram.v1 import coordination_pb2_grpc as rpc
from engram_kit import audit
from engram_kit.events import NatsLink
from engram_kit.health import Readiness
from engram_kit.runtime import run_until_signal, sleep_or_stop
from engram_kit.service import Background, Register, run_database_service

from .board import HintPublisher
from .leases import Leases
from .mail import Mail
from .presence import Presence
from .servicer import CoordinationServicer
from .settings import CoordinationSettings
from .sweep import BoardSweep

SCHEMA = "coordination"
MIGRATIONS = Path(__file__).parent / "migrations"
log = logging.getLogger(__name__)


async def amain(stop: asyncio.Event) -> None:
    # The fields come from the environment, which pyright cannot see.
    settings = CoordinationSettings()  # pyright: ignore[reportCallIssue]
    audit.use_key(settings.audit_hmac_key.get_secret_value())
    link = NatsLink(settings, name=settings.service_name)
    hints = HintPublisher(link, settings.hint_subject_prefix)

    def build(pool: asyncpg.Pool, readiness: Readiness) -> tuple[Register, Background]:
        leases = Leases(pool, settings, hints)
        servicer = CoordinationServicer(settings, Presence(pool, settings), leases,
                                        Mail(pool, settings, hints), pool)
        tidy = BoardSweep(pool, settings)
        # NATS only carries live hints; the board works without it.
        readiness.info["nats_connected"] = lambda: link.connected

        async def sweep(stop: asyncio.Event) -> None:
            while not stop.is_set():
                try:
                    await leases.sweep_once()
                except Exception as exc:  # keep sweeping; the next pass retries
                    log.warning("lease sweep failed", extra={"fields": {"error": repr(exc)}})
                await sleep_or_stop(stop, settings.lease_sweep_interval_s)

        async def tidy_board(stop: asyncio.Event) -> None:
            while not stop.is_set():
                try:
                    await tidy.sweep_once()
                except Exception as exc:  # keep sweeping; the next tick retries
                    log.warning("board sweep failed", extra={"fields": {"error": repr(exc)}})
                await sleep_or_stop(stop, settings.board_sweep_interval_s)

        return (lambda server: rpc.add_CoordinationServiceServicer_to_server(
            servicer, server)), [link.run, sweep, tidy_board]

    await run_database_service(settings, stop, SCHEMA, MIGRATIONS, build)


def main() -> None:
    run_until_signal(amain)
