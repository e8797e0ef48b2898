"""gRPC server bootstrap: interceptor (auth, context, errors, metrics),
health service driven by readiness checks, ops HTTP, SIGTERM drain."""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import (
    aio as health_aio,  # pyright: ignore[reportAttributeAccessIssue] -- typeshed's stubs omit it
)

from .context import MD_INTERNAL_TOKEN, CallerContext, caller_var, deadline_var
from .db import connection_failure
from .errors import DomainError, InvalidArgument, NotImplementedYet, Unavailable
from .grpc_client import MAX_MESSAGE_BYTES
from .health import Readiness
from .logging import request_id_var
from .metrics import READY, RPC_LATENCY, RPC_REQUESTS, rpc_var
from .ops_http import serve_ops_http
from .ports import bind_tcp, bound_port, write_ports_file
from .runtime import cancel_tasks, sleep_or_stop
from .settings import ServiceSettings

log = logging.getLogger(__name__)

MAX_CONNECTION_AGE_MS = 300_000
# A call in flight when its connection ages out finishes within this (a dream
# pass can take two minutes).
MAX_CONNECTION_AGE_GRACE_MS = 150_000

_OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


def reject_nul(message: Message, path: str = "") -> None:
    """Postgres text cannot hold NUL: refuse it up front with the field's
    name, for every service, instead of failing deep in a query."""
    for field, value in message.ListFields():
        name = f"{path}{field.name}"
        repeated = field.is_repeated
        if field.type == field.TYPE_STRING:
            values = value if repeated else [value]
            if any("\x00" in v for v in values):
                raise InvalidArgument(f"{name} contains a NUL character (\\x00), which "
                                      "cannot be stored; remove it", field=name)
        elif field.type == field.TYPE_MESSAGE:
            items = value if repeated else [value]
            for item in items:
                if isinstance(item, Message):
                    reject_nul(item, f"{name}.")


class ServiceInterceptor(grpc.aio.ServerInterceptor):
    """Authenticates internal calls and maps domain errors in one place."""

    def __init__(self, service: str, internal_token: str) -> None:
        self.service = service
        self._token = internal_token.encode()

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = await continuation(details)
        if handler is None or details.method.startswith(_OPEN_PREFIXES):
            return handler
        method = details.method.rsplit("/", 1)[-1]
        metadata = tuple(details.invocation_metadata or ())
        codec = {"request_deserializer": handler.request_deserializer,
                 "response_serializer": handler.response_serializer}
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._guard(method, metadata, context):
                    reject_nul(request)
                    return await inner(request, context)

            return grpc.unary_unary_rpc_method_handler(unary, **codec)
        if handler.stream_stream is not None:
            inner_stream = handler.stream_stream

            async def streaming(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._guard(method, metadata, context):
                    async for reply in inner_stream(requests, context):
                        yield reply

            return grpc.stream_stream_rpc_method_handler(streaming, **codec)
        raise RuntimeError(f"unsupported RPC shape for {details.method}")

    def _authenticated(self, metadata: tuple) -> bool:
        for key, value in metadata:
            if key == MD_INTERNAL_TOKEN:
                given = value.encode() if isinstance(value, str) else value
                return hmac.compare_digest(given, self._token)
        return False

    @asynccontextmanager
    async def _guard(self, method: str, metadata: tuple,
                     context: grpc.aio.ServicerContext) -> AsyncIterator[None]:
        """Authenticate, bind the caller context, map errors, record metrics."""
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        caller = CallerContext.from_metadata(metadata)
        caller_var.set(caller)
        request_id_var.set(caller.request_id)
        rpc_var.set((self.service, method))
        remaining = context.time_remaining()
        deadline_var.set(None if remaining is None else time.monotonic() + remaining)
        try:
            if not self._authenticated(metadata):
                code = grpc.StatusCode.UNAUTHENTICATED
                await context.abort(code, "missing or invalid internal credential")
            yield
        except grpc.aio.AbortError:
            raise
        except DomainError as exc:
            code = exc.code
            trailing = exc.trailing_metadata() if isinstance(exc, Unavailable) else ()
            await context.abort(exc.code, exc.message, trailing_metadata=trailing)
        except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError):
            # Two concurrent writes collided; Postgres rolled this one back whole.
            code = grpc.StatusCode.UNAVAILABLE
            await context.abort(code, f"{self.service}: a concurrent write collided with "
                                      "this one and nothing was written; retry it",
                                trailing_metadata=Unavailable("").trailing_metadata())
        except Exception as exc:
            if reason := connection_failure(exc):
                code = grpc.StatusCode.UNAVAILABLE
                await self._abort_unavailable(context, method, reason, exc)
            else:
                code = grpc.StatusCode.INTERNAL
                log.exception("unhandled error in %s", method)
                await context.abort(code, f"internal error in {self.service} "
                                          f"(request id {caller.request_id or '-'})")
        finally:
            RPC_REQUESTS.labels(self.service, method, code.name).inc()
            RPC_LATENCY.labels(self.service, method).observe(time.perf_counter() - started)

    async def _abort_unavailable(self, context: grpc.aio.ServicerContext, method: str,
                                 reason: str, exc: Exception) -> None:
        """A dependency outage is the caller's to retry, not a bug: no stack
        trace, one warning line, UNAVAILABLE with a retry-after hint."""
        log.warning("dependency unavailable in %s", method,
                    extra={"fields": {"error": repr(exc)}})
        err = Unavailable(f"{self.service}: {reason}")
        await context.abort(err.code, err.message, trailing_metadata=err.trailing_metadata())


def unimplemented(servicer_base: type, service: str, issue: str) -> Any:
    """A servicer whose every RPC answers UNIMPLEMENTED with a clear message."""

    def make(name: str) -> Callable[..., Awaitable[Any]]:
        async def rpc(self: Any, request: Any, context: Any) -> Any:
            raise NotImplementedYet(f"{service}.{name} is not built yet (see issue {issue})")

        return rpc

    names = [n for n in vars(servicer_base) if not n.startswith("_")]
    return type(f"Unimplemented{servicer_base.__name__}", (servicer_base,),
                {n: make(n) for n in names})()


async def _watch_readiness(readiness: Readiness, health: health_aio.HealthServicer,
                           stop: asyncio.Event, interval: float = 1.0) -> None:
    serving = health_pb2.HealthCheckResponse.SERVING
    not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
    while not stop.is_set():
        ready = await readiness.evaluate()
        READY.labels(readiness.service).set(1 if ready else 0)
        await health.set("", serving if ready else not_serving)
        await health.set(readiness.service, serving if ready else not_serving)
        await sleep_or_stop(stop, interval)


async def serve(
    settings: ServiceSettings,
    register: Callable[[grpc.aio.Server], None],
    readiness: Readiness,
    stop: asyncio.Event,
    background: list[Callable[[asyncio.Event], Coroutine[Any, Any, None]]] | None = None,
) -> None:
    """Serve gRPC + ops HTTP until `stop` is set, then drain gracefully."""
    token = settings.internal_token.get_secret_value()
    if not token:
        raise SystemExit("ENGRAM_INTERNAL_TOKEN is empty: refusing to serve unauthenticated gRPC")
    server = grpc.aio.server(
        interceptors=[ServiceInterceptor(settings.service_name, token)],
        options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                 ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                 # Clients reconnect, and so resolve the name again, at least
                 # this often: a replica added behind a DNS name gets calls.
                 ("grpc.max_connection_age_ms", MAX_CONNECTION_AGE_MS),
                 ("grpc.max_connection_age_grace_ms", MAX_CONNECTION_AGE_GRACE_MS)])
    register(server)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    grpc_port = server.add_insecure_port(f"{settings.grpc_host}:{settings.grpc_port}")
    ops_socket = bind_tcp(settings.http_host, settings.http_port)
    await server.start()
    tasks = [
        asyncio.create_task(_watch_readiness(readiness, health, stop)),
        asyncio.create_task(serve_ops_http(readiness, ops_socket, stop)),
    ]
    tasks += [asyncio.create_task(job(stop)) for job in background or []]
    ports = {"grpc": grpc_port, "http": bound_port(ops_socket)}
    if settings.ports_file:
        write_ports_file(settings.ports_file, ports)
    log.info("serving", extra={"fields": {f"{k}_port": v for k, v in ports.items()}})
    await stop.wait()
    log.info("draining")
    await health.enter_graceful_shutdown()
    await server.stop(settings.shutdown_grace_s)
    await cancel_tasks(tasks)
    log.info("stopped")
