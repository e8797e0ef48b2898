"""Client of the embedder service, shared by every service that stores
vectors. Failures degrade, they do not fail writes:
`None` means "no vector now" and the caller records that plainly.

Before the first vector is used, the embedder's model and dimension are
checked against what this store holds (the vector column's dimension and the
configured model): a mismatch would mix two embedding spaces, so vectors are
refused and the service reports it instead."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import grpc
import numpy as np
from prometheus_client import Counter

from engram.v1 import common_pb2, embedder_pb2, embedder_pb2_grpc

from .context import CallerContext
from .errors import DomainError
from .grpc_client import Caller, open_channel
from .metrics import stage
from .query_vector import accepted
from .runtime import sleep_or_stop

log = logging.getLogger(__name__)

EMBED_FAILURES = Counter(
    "engram_embed_client_failures_total", "Embedder calls that failed or timed out",
    ["service", "kind"],
)
CONNECT_WAIT_S = 0.3


def vectors_of(reply: embedder_pb2.EmbedResponse) -> np.ndarray:
    return np.frombuffer(reply.vectors_f32le, dtype="<f4").reshape(reply.count, reply.dimension)


class EmbeddingSpaceMismatch(Exception):
    pass


class EmbedderClient:
    def __init__(self, address: str, caller: Caller, timeout_s: float, expected_model: str,
                 expected_dimension: int, service: str = "memory") -> None:
        self._service = service
        self._system = CallerContext(principal=service)
        self._channel: grpc.aio.Channel = open_channel(address)
        self._stub = embedder_pb2_grpc.EmbedderServiceStub(self._channel)
        self._caller = caller
        self._timeout_s = timeout_s
        self.expected = (expected_model, expected_dimension)
        self.mismatch = ""  # set when the embedder serves another space
        self._verified = False

    @property
    def state(self) -> str:
        if self.mismatch:
            return self.mismatch
        return "verified" if self._verified else "not yet verified (embedder unreachable)"

    async def verify(self, timeout_s: float) -> bool:
        """True once the embedder's space matches; raises on a mismatch."""
        if self._verified:
            return True
        try:
            info = await self._caller.call(self._stub.Info, embedder_pb2.InfoRequest(),
                                           self._system, timeout_s=timeout_s, idempotent=True,
                                           attempts=1)
        except DomainError:
            return False
        if (info.model, info.dimension) != self.expected:
            self.mismatch = (
                f"embedder serves {info.model} ({info.dimension}-d) but this store holds "
                f"{self.expected[0]} ({self.expected[1]}-d) vectors; refusing to mix embedding "
                f"spaces: point {self._service} at a matching embedder or migrate the vectors")
            raise EmbeddingSpaceMismatch(self.mismatch)
        self._verified = True
        return True

    async def _ready(self) -> bool:
        if self.mismatch:
            return False
        await self._connected()
        try:
            return await self.verify(self._timeout_s)
        except EmbeddingSpaceMismatch:
            log.error("embedding space mismatch", extra={"fields": {"error": self.mismatch}})
            return False

    async def _connected(self, timeout_s: float = CONNECT_WAIT_S) -> None:
        """A channel that failed while the embedder was down fails calls fast
        until it reconnects; give a fresh connection attempt a moment."""
        if self._channel.get_state(try_to_connect=True) != grpc.ChannelConnectivity.READY:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._channel.channel_ready(), timeout_s)

    async def keep_connected(self, stop: asyncio.Event) -> None:
        """Background job: keep the channel connected (and the space verified)
        so that writes after an embedder outage do not meet a failing channel."""
        while not stop.is_set():
            if not self.mismatch:
                await self._connected(timeout_s=1.0)
                with contextlib.suppress(EmbeddingSpaceMismatch):
                    await self.verify(timeout_s=1.0)
            await sleep_or_stop(stop, 0.5)

    async def embed_query(self, text: str, ctx: CallerContext,
                          given: common_pb2.QueryVector | None = None) -> np.ndarray | None:
        """The query's vector: the one the caller passed along when it is of
        this store's space (no Embed call), else encoded here."""
        vector = None if given is None else accepted(given, self.expected)
        return vector if vector is not None else await self.embed_one(text, ctx, query=True)

    async def embed_one(self, text: str, ctx: CallerContext, *, query: bool) -> np.ndarray | None:
        if not await self._ready():
            EMBED_FAILURES.labels(self._service, "query" if query else "document").inc()
            return None
        kind = embedder_pb2.ENCODE_KIND_QUERY if query else embedder_pb2.ENCODE_KIND_DOCUMENT
        try:
            with stage("embed"):
                reply = await self._caller.call(
                    self._stub.Embed, embedder_pb2.EmbedRequest(texts=[text], kind=kind), ctx,
                    timeout_s=self._timeout_s, idempotent=True, attempts=2,
                )
        except DomainError as exc:
            EMBED_FAILURES.labels(self._service, "query" if query else "document").inc()
            log.warning("embedder unavailable", extra={"fields": {"error": exc.message}})
            return None
        return vectors_of(reply)[0]

    async def embed_many(self, texts: list[str], ctx: CallerContext) -> list[np.ndarray] | None:
        """Several document texts at interactive priority; None when the
        embedder is down (the caller degrades and says so)."""
        if not await self._ready():
            EMBED_FAILURES.labels(self._service, "document").inc()
            return None
        try:
            with stage("embed"):
                reply = await self._caller.call(
                    self._stub.Embed, embedder_pb2.EmbedRequest(
                        texts=texts, kind=embedder_pb2.ENCODE_KIND_DOCUMENT), ctx,
                    timeout_s=self._timeout_s, idempotent=True, attempts=2)
        except DomainError as exc:
            EMBED_FAILURES.labels(self._service, "document").inc()
            log.warning("embedder unavailable", extra={"fields": {"error": exc.message}})
            return None
        return list(vectors_of(reply))

    async def embed_documents(self, texts: list[str], ctx: CallerContext,
                              timeout_s: float) -> list[np.ndarray] | None:
        """Bulk encode at bulk priority; None when the embedder is down."""
        if not await self._ready():
            return None
        try:
            reply = await self._caller.call(
                self._stub.Embed, embedder_pb2.EmbedRequest(
                    texts=texts, kind=embedder_pb2.ENCODE_KIND_DOCUMENT,
                    priority=embedder_pb2.EMBED_PRIORITY_BULK),
                ctx, timeout_s=timeout_s, idempotent=True, attempts=1,
            )
        except DomainError:
            EMBED_FAILURES.labels(self._service, "sweep").inc()
            return None
        return list(vectors_of(reply))

    async def close(self) -> None:
        await self._channel.close()
