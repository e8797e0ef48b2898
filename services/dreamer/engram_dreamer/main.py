"""Wiring only: settings -> schema service -> event consumer + gRPC server."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import asyncpg

from engram.v1 import dreamer_pb2_grpc
from engram_kit.events import ConsumerSpec, NatsLink, run_consumer
from engram_kit.health import Readiness
from engram_kit.runtime import run_until_signal
from engram_kit.service import run_database_service

from .backends import Backends
from .extract_openai import OpenAIExtractor
from .extract_rules import RulesExtractor
from .extractor import Extractor
from .intake import EventIntake
from .passes import DreamPasses
from .proposals import Proposals
from .scheduler import Scheduler
from .servicer import DreamerServicer
from .settings import DreamerSettings

SCHEMA = "dreamer"
MIGRATIONS = Path(__file__).parent / "migrations"


def build_extractor(s: DreamerSettings) -> Extractor | None:
    if s.extractor == "rules":
        return RulesExtractor(s.rules_grammar)
    if s.extractor == "openai":
        if not s.llm_base_url or not s.llm_model:
            raise SystemExit("dreamer refuses to start: ENGRAM_EXTRACTOR=openai needs "
                             "ENGRAM_LLM_BASE_URL and ENGRAM_LLM_MODEL")
        return OpenAIExtractor(s.llm_base_url, s.llm_model,
                               s.llm_api_key.get_secret_value(), s.llm_timeout_s,
                               s.llm_retries)
    if s.extractor == "none":
        return None
    raise SystemExit(f"dreamer refuses to start: unknown ENGRAM_EXTRACTOR {s.extractor!r} "
                     "(rules, openai or none)")


async def amain(s: DreamerSettings, stop: asyncio.Event) -> None:
    extractor = build_extractor(s)
    link = NatsLink(s, name=s.service_name)
    spec = ConsumerSpec(durable=s.consumer_durable, filter_subject=s.consumer_filter,
                        max_deliver=s.consumer_max_deliver,
                        dead_letter_subject=s.dead_letter_subject)
    backends = Backends(s)

    def build(pool: asyncpg.Pool, readiness: Readiness) -> tuple:
        intake = EventIntake(pool, s.consumer_durable, backends, s.events_subjects)
        passes = DreamPasses(pool, s, extractor, backends, Proposals(pool, backends))

        async def consumer_bound() -> bool:
            return intake.connected and link.connected

        async def consume(stop: asyncio.Event) -> None:
            await run_consumer(link, spec, intake.handle, stop, on_bound=intake.set_connected,
                               gate=lambda: readiness.state.get("database", False))

        readiness.add("nats_consumer", consumer_bound)
        readiness.info["extractor"] = extractor.name if extractor else "none"
        readiness.info["extractor_model"] = extractor.model if extractor else ""
        servicer = DreamerServicer(pool, intake, s, passes)
        return (lambda server: dreamer_pb2_grpc.add_DreamerServiceServicer_to_server(
            servicer, server)), [link.run, consume, Scheduler(pool, s, passes).run]

    try:
        await run_database_service(s, stop, SCHEMA, MIGRATIONS, build, vector=False)
    finally:
        await backends.close()


def main() -> None:
    # Its fields come from the environment, which pyright cannot see.
    s = DreamerSettings()  # pyright: ignore[reportCallIssue]
    run_until_signal(partial(amain, s), s.event_loop)
