"""The common shape of a service that owns a Postgres schema:
logging -> migrations -> pool -> readiness -> gRPC + ops HTTP -> drain."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import asyncpg
import grpc

from .db import add_database_checks, open_service_database
from .grpc_server import serve
from .health import Readiness
from .logging import configure_logging
from .settings import DatabaseSettings, ServiceSettings

Register = Callable[[grpc.aio.Server], None]
Background = list[Callable[[asyncio.Event], Coroutine[Any, Any, None]]]
Build = Callable[[asyncpg.Pool, Readiness], tuple[Register, Background]]


async def run_database_service(settings: ServiceSettings, stop: asyncio.Event, schema: str,
                               migrations_dir: Path, build: Build, *,
                               vector: bool = True) -> None:
    """`build(pool, readiness)` wires the service's servicers and jobs."""
    configure_logging(settings.service_name, settings.log_level)
    if not isinstance(settings, DatabaseSettings):
        raise TypeError(f"{type(settings).__name__} must include DatabaseSettings")
    pool = await open_service_database(settings, schema, vector=vector)
    readiness = Readiness(settings.service_name)
    add_database_checks(readiness, pool, schema, migrations_dir)
    try:
        register, background = build(pool, readiness)
        await serve(settings, register, readiness, stop, background)
    finally:
        await pool.close()
