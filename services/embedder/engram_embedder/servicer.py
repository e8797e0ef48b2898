"""gRPC servicer: validate limits, translate proto <-> batcher calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import numpy as np

from engram.v1 import embedder_pb2, embedder_pb2_grpc
from engram_kit.context import current_caller
from engram_kit.errors import (
    DeadlineExceeded,
    InvalidArgument,
    ResourceExhausted,
    Unavailable,
)

from .batcher import Batcher, DeadlineExpired, Priority, QueueFull
from .model_process import ModelProcessLost
from .query_cache import QueryShare
from .settings import EmbedderSettings

_PRIORITY = {
    embedder_pb2.EMBED_PRIORITY_UNSPECIFIED: Priority.INTERACTIVE,
    embedder_pb2.EMBED_PRIORITY_INTERACTIVE: Priority.INTERACTIVE,
    embedder_pb2.EMBED_PRIORITY_BULK: Priority.BULK,
}


class EmbedderServicer(embedder_pb2_grpc.EmbedderServiceServicer):
    def __init__(self, batcher: Batcher, settings: EmbedderSettings) -> None:
        self.batcher = batcher
        self.s = settings
        self.queries = QueryShare()

    def _validated(self, request: Any) -> list[str]:
        texts = list(request.texts)
        if not texts:
            raise InvalidArgument("texts must not be empty", field="texts")
        if len(texts) > self.s.max_texts_per_request:
            raise InvalidArgument(
                f"at most {self.s.max_texts_per_request} texts per request (got {len(texts)}); "
                "use EmbedStream for bulk", field="texts")
        if any(len(t) > self.s.max_text_chars for t in texts):
            raise InvalidArgument(
                f"each text must be at most {self.s.max_text_chars} characters", field="texts")
        prefix = self.s.query_prefix if request.kind == embedder_pb2.ENCODE_KIND_QUERY \
            else self.s.document_prefix
        return [prefix + t for t in texts] if prefix else texts

    async def _encode(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        texts = self._validated(request)
        remaining = context.time_remaining()
        deadline = self.batcher.clock() + remaining if remaining is not None else None
        priority = _PRIORITY[request.priority]
        try:
            if (request.kind == embedder_pb2.ENCODE_KIND_QUERY and len(texts) == 1
                    and priority is Priority.INTERACTIVE):
                matrix = await self.queries.encode(
                    current_caller().namespace, texts[0],
                    lambda: self.batcher.encode(texts, priority, deadline))
            else:
                matrix = await self.batcher.encode(texts, priority, deadline)
        except QueueFull as exc:
            context.set_trailing_metadata((("retry-after-ms", str(exc.retry_after_ms)),))
            raise ResourceExhausted(str(exc)) from None
        except DeadlineExpired:
            raise DeadlineExceeded("the request's deadline passed while it was queued") \
                from None
        except ModelProcessLost as exc:
            raise Unavailable(str(exc)) from None
        backend = self.batcher.backend
        return embedder_pb2.EmbedResponse(
            vectors_f32le=np.ascontiguousarray(matrix, dtype="<f4").tobytes(),
            count=len(matrix), model=backend.model, dimension=backend.dimension,
        )

    async def Embed(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC name)
        return await self._encode(request, context)

    async def EmbedStream(self, request_iterator: Any,  # noqa: N802
                          context: Any) -> AsyncIterator[Any]:
        async for request in request_iterator:
            yield await self._encode(request, context)

    async def Info(self, request: Any, context: Any) -> Any:  # noqa: N802
        b = self.batcher.backend
        return embedder_pb2.InfoResponse(
            backend=b.name, model=b.model, dimension=b.dimension, normalized=b.normalized,
            max_batch_size=self.s.max_batch_size,
            max_texts_per_request=self.s.max_texts_per_request,
            max_queue_texts=self.s.max_queue_texts, query_prefix=self.s.query_prefix,
            document_prefix=self.s.document_prefix,
        )
