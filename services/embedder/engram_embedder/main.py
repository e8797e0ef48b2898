"""Wiring only: settings -> backend -> batcher -> gRPC server."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import grpc

from engram.v1 import embedder_pb2_grpc
from engram_kit.grpc_server import serve
from engram_kit.health import Readiness
from engram_kit.logging import configure_logging
from engram_kit.runtime import run_until_signal

from .backend import build_backend
from .batcher import Batcher
from .servicer import EmbedderServicer
from .settings import EmbedderSettings

log = logging.getLogger(__name__)


async def amain(settings: EmbedderSettings, stop: asyncio.Event) -> None:
    configure_logging(settings.service_name, settings.log_level)
    # The model lives on one thread: load, warm-up and every encode (see Batcher).
    model_thread = ThreadPoolExecutor(1, thread_name_prefix="model")
    loop = asyncio.get_running_loop()
    backend = await loop.run_in_executor(model_thread, partial(
        build_backend, settings.backend, settings.model_path, settings.device,
        settings.vllm_url, settings.model_name, settings.backend_timeout_s, settings.sub_batch,
        settings.tokens_per_call, settings.model_processes, settings.dtype,
        settings.model_runtime))
    side_lanes = [ThreadPoolExecutor(1, thread_name_prefix=f"side{i}")
                  for i in range(settings.side_lanes)]
    # Each lane's first call makes its intra-op pool (or starts its worker
    # process) and warms the model: all lanes at once, before reporting ready.
    # Side lanes run on one intra-op thread from the start (see Batcher).

    def warm(threads: int) -> None:
        backend.intra_op_threads(threads)
        backend.encode(["warm up"] * 4)

    await asyncio.gather(loop.run_in_executor(model_thread, warm, 0),
                         *(loop.run_in_executor(lane, warm, 1) for lane in side_lanes))
    batcher = Batcher(backend, settings.max_batch_size, settings.max_wait_ms,
                      settings.max_queue_texts, settings.bulk_slice_ms,
                      settings.bulk_batch_ms,
                      model_thread=model_thread, side_lanes=side_lanes,
                      side_batch_min=settings.side_batch_min,
                      small_batch_texts=settings.small_batch_texts)
    readiness = Readiness(settings.service_name)

    async def model_loaded() -> bool:
        return backend.dimension > 0

    readiness.add("model", model_loaded)
    readiness.info.update(backend=backend.name, model=backend.model, dimension=backend.dimension)

    def register(server: grpc.aio.Server) -> None:
        embedder_pb2_grpc.add_EmbedderServiceServicer_to_server(
            EmbedderServicer(batcher, settings), server
        )

    try:
        await serve(settings, register, readiness, stop, background=[batcher.run])
    finally:
        backend.close()  # worker processes exit when their pipe closes


def main() -> None:
    # Its fields come from the environment, which pyright cannot see.
    settings = EmbedderSettings()  # pyright: ignore[reportCallIssue]
    run_until_signal(partial(amain, settings), settings.event_loop)
