"""Per-service ops endpoints: /healthz, /readyz, /health, /metrics."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .health import Readiness


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: the service owns SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def ops_app(readiness: Readiness) -> Starlette:
    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "alive", "service": readiness.service})

    async def readyz(_: Request) -> Response:
        report = readiness.report()
        return JSONResponse(report, status_code=200 if report["ready"] else 503)

    async def health(_: Request) -> Response:
        return JSONResponse(readiness.report())

    async def metrics(_: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/health", health),
            Route("/metrics", metrics),
        ]
    )


async def serve_ops_http(
    readiness: Readiness, sock: socket.socket, stop: asyncio.Event
) -> None:
    """Serve the ops endpoints on `sock` (bound by the caller) until `stop`."""
    config = uvicorn.Config(
        ops_app(readiness), log_level="warning", lifespan="off", access_log=False,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    await stop.wait()
    server.should_exit = True
    await task
