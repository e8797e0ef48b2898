"""Client of the embedder service. Failures degrade, they do not fail writes:
`None` means "no vector now" and the caller records that plainly."""

from __future__ import annotations

import logging

import grpc
import numpy as np
from prometheus_client import Counter

from engram.v1 import embedder_pb2, embedder_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.errors import DomainError
from engram_kit.grpc_client import Caller, open_channel

log = logging.getLogger(__name__)

EMBED_FAILURES = Counter(
    "engram_memory_embed_failures_total", "Embedder calls that failed or timed out", ["kind"]
)


class EmbedderClient:
    def __init__(self, address: str, caller: Caller, timeout_s: float) -> None:
        self._channel: grpc.aio.Channel = open_channel(address)
        self._stub = embedder_pb2_grpc.EmbedderServiceStub(self._channel)
        self._caller = caller
        self._timeout_s = timeout_s

    async def embed_one(self, text: str, ctx: CallerContext, *, query: bool) -> np.ndarray | None:
        kind = embedder_pb2.ENCODE_KIND_QUERY if query else embedder_pb2.ENCODE_KIND_DOCUMENT
        try:
            reply = await self._caller.call(
                self._stub.Embed, embedder_pb2.EmbedRequest(texts=[text], kind=kind), ctx,
                timeout_s=self._timeout_s, idempotent=True, attempts=2,
            )
        except DomainError as exc:
            EMBED_FAILURES.labels("query" if query else "document").inc()
            log.warning("embedder unavailable", extra={"fields": {"error": exc.message}})
            return None
        return np.asarray(reply.vectors[0].values, dtype=np.float32)

    async def embed_documents(self, texts: list[str], ctx: CallerContext,
                              timeout_s: float) -> list[np.ndarray] | None:
        """Bulk encode for background work; None when the embedder is down."""
        try:
            reply = await self._caller.call(
                self._stub.Embed, embedder_pb2.EmbedRequest(
                    texts=texts, kind=embedder_pb2.ENCODE_KIND_DOCUMENT),
                ctx, timeout_s=timeout_s, idempotent=True, attempts=1,
            )
        except DomainError:
            EMBED_FAILURES.labels("sweep").inc()
            return None
        return [np.asarray(v.values, dtype=np.float32) for v in reply.vectors]

    async def close(self) -> None:
        await self._channel.close()
