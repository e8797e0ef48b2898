"""Re-embed sweep: entries and document chunks stored while the embedder was
down get their vector once it is back, and entries get their context vector
(context_vectors.py) moments after their write: a write that queues one
wakes the sweep, and the writes queued meanwhile share one batch. Runs as a
background job of the memory service."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from uuid import UUID

import asyncpg
from prometheus_client import Counter, Gauge

from engram_kit.context import CallerContext
from engram_kit.db import duty_tx, tenant_tx
from engram_kit.embedder_client import EmbedderClient
from engram_kit.runtime import sleep_or_stop, woken_or_stop

from . import repo_vector_queue as vq
from .context_vectors import context_of_row

log = logging.getLogger(__name__)

BACKLOG = Gauge("engram_memory_embedding_backlog", "Rows waiting for a vector", ["kind"])
REEMBEDDED = Counter("engram_memory_reembedded_total", "Rows embedded by the sweep", ["kind"])
QUEUES = (vq.ENTRIES, vq.CONTEXTS, vq.CHUNKS)


class ReembedSweep:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient, interval_s: float,
                 batch: int = 64, timeout_s: float = 30.0) -> None:
        self.pool = pool
        self.embedder = embedder
        self.interval_s = interval_s
        self.batch = batch
        self.timeout_s = timeout_s
        self._wake = asyncio.Event()

    def notify(self) -> None:
        """Called after a commit that queued a vector: fill it promptly."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self._wake.clear()
            done, failed = 0, False
            try:
                for q in QUEUES:
                    embedded = await self.sweep_once(q)
                    failed = failed or embedded < 0
                    done = max(done, embedded)
            except Exception as exc:  # keep sweeping; the queues keep what is left
                failed = True
                log.warning("re-embed pass failed", extra={"fields": {"error": repr(exc)}})
            if done >= self.batch:
                continue
            if failed:  # the embedder is down: wait the interval, whatever is queued
                await sleep_or_stop(stop, self.interval_s)
            else:
                await woken_or_stop(self._wake, stop, self.interval_s)

    async def sweep_once(self, q: vq.VectorQueue) -> int:
        """Rows given a vector this pass; -1 when the embedder did not answer."""
        async with duty_tx(self.pool, "embedding_sweep") as conn:
            queued = await vq.backlog(conn, q, self.batch)
            BACKLOG.labels(q.label).set(await vq.backlog_size(conn, q))
        by_namespace: dict[str, list[UUID]] = defaultdict(list)
        for row in queued:
            by_namespace[row.namespace].append(row.id)
        done = 0
        for namespace, ids in by_namespace.items():
            embed = self._embed_contexts if q is vq.CONTEXTS else self._embed_namespace
            embedded = await embed(q, namespace, ids)
            if embedded < 0:
                return -1  # embedder still down: try again next interval
            done += embedded
        return done

    async def _embed_namespace(self, q: vq.VectorQueue, namespace: str, ids: list[UUID]) -> int:
        ctx = CallerContext(principal="memory:reembed", namespace=namespace)
        async with tenant_tx(self.pool, namespace) as conn:
            rows = await vq.texts(conn, q, ids)
        vectors = await self.embedder.embed_documents([r.text for r in rows], ctx,
                                                      self.timeout_s) if rows else []
        if vectors is None:
            return -1
        async with tenant_tx(self.pool, namespace) as conn:
            await vq.fill(conn, q, [(r.id, v) for r, v in zip(rows, vectors, strict=True)])
            await vq.dequeue(conn, q, ids)
        REEMBEDDED.labels(q.label).inc(len(rows))
        return len(rows)

    async def _embed_contexts(self, q: vq.VectorQueue, namespace: str, ids: list[UUID]) -> int:
        ctx = CallerContext(principal="memory:context", namespace=namespace)
        async with tenant_tx(self.pool, namespace) as conn:
            rows = await vq.context_texts(conn, ids)
        texts = [context_of_row(r.text, r.before_text, r.prior_text) for r in rows]
        vectors = await self.embedder.embed_documents(texts, ctx, self.timeout_s) \
            if rows else []
        if vectors is None:
            return -1
        async with tenant_tx(self.pool, namespace) as conn:
            await vq.fill_contexts(conn, [(r.id, v, r.context_of, r.context_of_prior)
                                          for r, v in zip(rows, vectors, strict=True)])
            await vq.dequeue(conn, q, ids)
        REEMBEDDED.labels(q.label).inc(len(rows))
        return len(rows)
