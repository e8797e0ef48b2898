"""The sentence-transformers model in its own processes, one per model thread.

Why: in one process the model threads and the gRPC event loop share one GIL.
Every torch op hands it back and forth, and on a small CPU the lanes block on
each other (measured on 2 cores at concurrency 128: each lane thread blocked
~750 times a second and ran only 0.82 of a core). Here each model thread (a
lane) drives its own worker process over a pipe and blocks in I/O, which
holds no GIL.

The batcher is unchanged: `encode` and `intra_op_threads` are called from a
lane's thread, and each calling thread gets its own worker (spawned on first
use; the embedder warms every lane at once before it reports ready). A worker that
dies fails its batch with ModelProcessLost and is replaced on the lane's next
call.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from .backend import Encoded, ModelDtype, ModelRuntime

log = logging.getLogger(__name__)


class ModelProcessLost(Exception):
    """The worker process holding the model exited mid-call."""


def _serve(conn: Connection, model_path: str, device: str, sub_batch: int,
           tokens_per_call: int, dtype: ModelDtype, runtime: ModelRuntime) -> None:
    """Worker main: load the model, then answer encode calls until the pipe closes."""
    # The embedder drains on SIGTERM, then closes the pipe; a signal sent to
    # the whole process group must not kill the model under an in-flight batch.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .backend import SentenceTransformerBackend

    backend = SentenceTransformerBackend(model_path, device, sub_batch, tokens_per_call, dtype,
                                         runtime)
    conn.send((backend.model, backend.dimension))
    while True:
        try:
            texts, threads = conn.recv()
        except (EOFError, OSError):
            return
        try:
            backend.intra_op_threads(threads)
            encoded = backend.encode(texts)
            conn.send(("ok", encoded.vectors, encoded.tokens))
        except Exception as exc:  # reported to the batch's callers; the worker lives on
            conn.send(("error", f"{type(exc).__name__}: {exc}", 0))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    threads: int = 0  # intra-op threads for the next encode (0: the worker's default)

    def close(self) -> None:
        self.conn.close()
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()


class ProcessBackend:
    """EncoderBackend whose model runs in one worker process per calling thread."""

    name = "sentence-transformers"
    normalized = True

    def __init__(self, model_path: str, device: str, sub_batch: int = 64,
                 tokens_per_call: int = 1024, dtype: ModelDtype = ModelDtype.FLOAT32,
                 runtime: ModelRuntime = ModelRuntime.AUTO) -> None:
        self._args = (model_path, device, sub_batch, tokens_per_call, dtype, runtime)
        self._context = multiprocessing.get_context("spawn")  # no fork of gRPC/torch threads
        self._local = threading.local()
        self._workers: list[_Worker] = []
        # Learned from the first worker that loads (each lane's first encode
        # starts its worker: the embedder warms every lane at once).
        self.model, self.dimension = "", 0

    def _spawn(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(child, *self._args),
                                        name="engram-embedder-model", daemon=True)
        process.start()
        child.close()
        try:
            self.model, self.dimension = parent.recv()
        except (EOFError, OSError):
            process.join(5)
            raise ModelProcessLost(f"the model process exited while loading the model (code "
                                   f"{process.exitcode}); see the embedder's log") from None
        worker = _Worker(process, parent)
        self._workers.append(worker)
        return worker

    def _worker(self) -> _Worker:
        worker: _Worker | None = getattr(self._local, "worker", None)
        if worker is None or not worker.process.is_alive():
            if worker is not None:
                self._workers.remove(worker)
                log.warning("model process %s exited (code %s); starting a new one",
                            worker.process.pid, worker.process.exitcode)
            worker = self._local.worker = self._spawn()
        return worker

    def encode(self, texts: list[str]) -> Encoded:
        worker = self._worker()
        try:
            worker.conn.send((texts, worker.threads))
            status, result, tokens = worker.conn.recv()
        except (EOFError, OSError):
            worker.process.join(5)
            raise ModelProcessLost(f"the model process exited mid-batch (code "
                                   f"{worker.process.exitcode}); it is being restarted, "
                                   "retry the request") from None
        if status != "ok":
            raise RuntimeError(f"the model failed to encode the batch: {result}")
        return Encoded(result, tokens)

    def intra_op_threads(self, n: int) -> None:
        """Applied by this thread's worker with its next encode."""
        self._worker().threads = n

    @property
    def pids(self) -> list[int]:
        """The worker processes' pids (for operators and tests)."""
        return [w.process.pid for w in self._workers]

    def close(self) -> None:
        for worker in self._workers:
            worker.close()
        self._workers.clear()
