"""gRPC servicer: translate proto <-> batcher calls, validate limits."""

from __future__ import annotations

from typing import Any

from engram.v1 import embedder_pb2, embedder_pb2_grpc
from engram_kit.errors import InvalidArgument

from .batcher import Batcher
from .settings import EmbedderSettings


class EmbedderServicer(embedder_pb2_grpc.EmbedderServiceServicer):
    def __init__(self, batcher: Batcher, settings: EmbedderSettings) -> None:
        self.batcher = batcher
        self.settings = settings

    def _prefix(self, kind: int) -> str:
        if kind == embedder_pb2.ENCODE_KIND_QUERY:
            return self.settings.query_prefix
        return self.settings.document_prefix

    async def Embed(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC name)
        texts = list(request.texts)
        if not texts:
            raise InvalidArgument("texts must not be empty", field="texts")
        if len(texts) > self.settings.max_texts_per_request:
            raise InvalidArgument(
                f"at most {self.settings.max_texts_per_request} texts per request", field="texts"
            )
        if any(len(t) > self.settings.max_text_chars for t in texts):
            raise InvalidArgument(
                f"each text must be at most {self.settings.max_text_chars} characters",
                field="texts",
            )
        prefix = self._prefix(request.kind)
        matrix = await self.batcher.encode([prefix + t for t in texts])
        backend = self.batcher.backend
        return embedder_pb2.EmbedResponse(
            vectors=[embedder_pb2.Vector(values=row.tolist()) for row in matrix],
            model=backend.model, dimension=backend.dimension,
        )

    async def Info(self, request: Any, context: Any) -> Any:  # noqa: N802
        backend = self.batcher.backend
        return embedder_pb2.InfoResponse(
            backend=backend.name, model=backend.model, dimension=backend.dimension,
            normalized=backend.normalized, max_batch_size=self.settings.max_batch_size,
        )
