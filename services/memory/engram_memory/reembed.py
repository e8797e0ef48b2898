"""Re-embed sweep: entries and document chunks stored while the embedder was
down get their vector once it is back. Runs as a background job of the
memory service."""

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
from engram_kit.runtime import sleep_or_stop

from . import repo_vector_queue as vq

log = logging.getLogger(__name__)

BACKLOG = Gauge("engram_memory_embedding_backlog", "Rows waiting for a vector", ["kind"])
REEMBEDDED = Counter("engram_memory_reembedded_total", "Rows embedded by the sweep", ["kind"])
QUEUES = (vq.ENTRIES, vq.CHUNKS)


class ReembedSweep:
    def __init__(self, pool: asyncpg.Pool, embedder: EmbedderClient, interval_s: float,
                 batch: int = 64, timeout_s: float = 30.0) -> None:
        self.pool = pool
        self.embedder = embedder
        self.interval_s = interval_s
        self.batch = batch
        self.timeout_s = timeout_s

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            done = 0
            try:
                for q in QUEUES:
                    done = max(done, await self.sweep_once(q))
            except Exception as exc:  # keep sweeping; the queues keep what is left
                log.warning("re-embed pass failed", extra={"fields": {"error": repr(exc)}})
            if done < self.batch:
                await sleep_or_stop(stop, self.interval_s)

    async def sweep_once(self, q: vq.VectorQueue) -> int:
        async with duty_tx(self.pool, "embedding_sweep") as conn:
            queued = await vq.backlog(conn, q, self.batch)
            BACKLOG.labels(q.rows).set(await vq.backlog_size(conn, q))
        by_namespace: dict[str, list[UUID]] = defaultdict(list)
        for row in queued:
            by_namespace[row["namespace"]].append(row["id"])
        done = 0
        for namespace, ids in by_namespace.items():
            embedded = await self._embed_namespace(q, namespace, ids)
            if embedded < 0:
                break  # embedder still down: try again next interval
            done += embedded
        return done

    async def _embed_namespace(self, q: vq.VectorQueue, namespace: str, ids: list[UUID]) -> int:
        ctx = CallerContext(principal="memory:reembed", namespace=namespace)
        async with tenant_tx(self.pool, namespace) as conn:
            rows = await vq.texts(conn, q, ids)
        vectors = await self.embedder.embed_documents([r["text"] for r in rows], ctx,
                                                      self.timeout_s) if rows else []
        if vectors is None:
            return -1
        async with tenant_tx(self.pool, namespace) as conn:
            await vq.fill(conn, q, [(r["id"], v) for r, v in zip(rows, vectors, strict=True)])
            await vq.dequeue(conn, q, ids)
        REEMBEDDED.labels(q.rows).inc(len(rows))
        return len(rows)
