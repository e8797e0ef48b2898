"""gRPC clients of the backing services: every outbound call lives here."""

from __future__ import annotations

import time
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engram.v1 import (
    audit_pb2_grpc,
    coordination_pb2_grpc,
    cortex_pb2_grpc,
    dreamer_pb2_grpc,
    embedder_pb2,
    embedder_pb2_grpc,
    memory_pb2_grpc,
)
from engram.v1.common_pb2 import QueryVector
from engram_kit.context import CallerContext
from engram_kit.errors import DomainError
from engram_kit.grpc_client import Caller, open_channel
from engram_kit.metrics import STAGE_LATENCY
from engram_kit.query_vector import from_reply

from .rpcs import CORTEX_STUBS, DREAMER, Req, Resp, Rpc, Service, name_of
from .settings import GatewaySettings

__all__ = ["Backends", "Calls", "Service"]


def _stubs(channel: grpc.aio.Channel, module: Any, *names: str) -> dict[str, Any]:
    """The generated stub of each named proto service, on one channel."""
    return {name: getattr(module, f"{name}Stub")(channel) for name in names}


class Backends:
    """Channels are opened in `open()`, inside the server's event loop (a
    grpc.aio channel is bound to the loop it was created in)."""

    def __init__(self, settings: GatewaySettings) -> None:
        self._settings = settings
        self._caller = Caller(settings.internal_token.get_secret_value(),
                              default_timeout_s=settings.call_timeout_s)

    def open(self) -> None:
        self._memory_channel = open_channel(self._settings.memory_addr)
        self._coordination_channel = open_channel(self._settings.coordination_addr)
        self._cortex_channel = open_channel(self._settings.cortex_addr)
        self._dreamer_channel = open_channel(self._settings.dreamer_addr)
        # Each service's stubs by proto service name (rpcs.RpcName.stub).
        self._stubs = {
            Service.MEMORY: _stubs(self._memory_channel, memory_pb2_grpc, "MemoryService"),
            Service.CORTEX: _stubs(self._cortex_channel, cortex_pb2_grpc, *CORTEX_STUBS),
            Service.COORDINATION: _stubs(self._coordination_channel, coordination_pb2_grpc,
                                         "CoordinationService"),
            Service.DREAMER: _stubs(self._dreamer_channel, dreamer_pb2_grpc, "DreamerService")}
        # The audit RPCs, which each auditing service serves beside its own.
        for service, channel in ((Service.MEMORY, self._memory_channel),
                                 (Service.CORTEX, self._cortex_channel),
                                 (Service.COORDINATION, self._coordination_channel)):
            self._stubs[service] |= _stubs(channel, audit_pb2_grpc, "AuditService")
        self._embedder_channel = open_channel(self._settings.embedder_addr) \
            if self._settings.embedder_addr else None
        self._embedder = None if self._embedder_channel is None else \
            embedder_pb2_grpc.EmbedderServiceStub(self._embedder_channel)
        self._health = {
            "cortex": health_pb2_grpc.HealthStub(self._cortex_channel),
            "memory": health_pb2_grpc.HealthStub(self._memory_channel),
            "coordination": health_pb2_grpc.HealthStub(self._coordination_channel),
        }

    async def ready(self) -> dict[str, bool]:
        """Health of each backing service the gateway calls."""
        checks = {}
        for name, stub in self._health.items():
            try:
                # typeshed's HealthStub leaves out the methods its __init__ sets.
                reply = await stub.Check(  # pyright: ignore[reportAttributeAccessIssue]
                    health_pb2.HealthCheckRequest(), timeout=2)
                checks[name] = reply.status == health_pb2.HealthCheckResponse.SERVING
            except grpc.aio.AioRpcError:
                checks[name] = False
        return checks

    async def call(self, rpc: Rpc[Req, Resp], ctx: CallerContext, request: Req,
                   *, resend: bool, attempts: int = 5, timeout_s: float | None = None) -> Resp:
        """Call `rpc` (named in engram_gateway.rpcs, e.g. rpcs.MEMORY.Store).
        UNAVAILABLE is retried when gRPC never sent the call, and with `resend`
        (an operation that changes nothing) also after it was sent: a write
        retried after sending could apply twice."""
        name = name_of(rpc)
        method: Rpc[Req, Resp] = getattr(self._stubs[name.service][name.stub], name.method)
        # A dream pass can take a while.
        timeout = 120.0 if rpc == DREAMER.Run else timeout_s
        return await self._caller.call(method, request, ctx, idempotent=resend,
                                       timeout_s=timeout, attempts=attempts)

    async def query_vector(self, ctx: CallerContext, text: str) -> QueryVector | None:
        """A search query's vector, for a search fanned out to several
        services; None (each encodes its own, or degrades to lexical) when
        no embedder is configured, it is down, or it fails."""
        if self._embedder is None or not text.strip() or self._embedder_channel is None \
                or self._embedder_channel.get_state() is grpc.ChannelConnectivity.TRANSIENT_FAILURE:
            return None
        started = time.perf_counter()
        try:
            reply = await self._caller.call(
                self._embedder.Embed, embedder_pb2.EmbedRequest(
                    texts=[text.strip()], kind=embedder_pb2.ENCODE_KIND_QUERY), ctx,
                idempotent=True, attempts=1, timeout_s=self._settings.query_encode_timeout_s)
        except DomainError:
            return None
        finally:  # the benchmarks' breakdown of a search reads it
            STAGE_LATENCY.labels("gateway", "memory_search", "embed").observe(
                time.perf_counter() - started)
        return from_reply(reply)

    async def close(self) -> None:
        if self._embedder_channel is not None:
            await self._embedder_channel.close()
        await self._dreamer_channel.close()
        await self._cortex_channel.close()
        await self._memory_channel.close()
        await self._coordination_channel.close()


class Calls:
    """The backends as one tool operation calls them: `resend` comes from
    the operation's entry in the tool registry (only reads are resent)."""

    def __init__(self, backends: Backends, resend: bool) -> None:
        self._backends = backends
        self._resend = resend

    async def call(self, rpc: Rpc[Req, Resp], ctx: CallerContext, request: Req) -> Resp:
        """E.g. `await calls.call(rpcs.MEMORY.Store, ctx, StoreRequest(...))`:
        pyright checks the RPC's name and request type, and types the reply."""
        return await self._backends.call(rpc, ctx, request, resend=self._resend)

    async def query_vector(self, ctx: CallerContext, text: str) -> QueryVector | None:
        return await self._backends.query_vector(ctx, text)
