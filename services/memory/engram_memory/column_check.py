"""entries.embedding must hold vectors of the configured dimension, or
stored vectors and new ones could not be compared."""

from __future__ import annotations

import logging
from typing import cast

import asyncpg

from engram_kit.db import connection_failure

from . import repo

log = logging.getLogger(__name__)


class EmbeddingColumnCheck:
    def __init__(self, pool: asyncpg.Pool, dimension: int) -> None:
        self._pool = pool
        self._dimension = dimension
        self.mismatch = ""
        self._verified = False

    async def at_start(self) -> None:
        """A mismatch stops the service. With the database down the check
        waits: readiness runs it (not ready until it passes)."""
        try:
            await self.check()
        except Exception as exc:
            if not connection_failure(exc):
                raise
        if self.mismatch:
            raise SystemExit(f"memory refuses to start: {self.mismatch}")

    async def check(self) -> bool:
        """Readiness check: True once the column matches the setting."""
        if self._verified or self.mismatch:
            return self._verified
        async with self._pool.acquire() as conn:
            # The pool's proxy forwards every Connection method to its connection.
            column_dim = await repo.vector_column_dimension(cast(asyncpg.Connection, conn))
        if column_dim != self._dimension:
            self.mismatch = (f"entries.embedding is vector({column_dim}) but "
                             f"ENGRAM_EMBEDDING_DIMENSION is {self._dimension}")
            log.error("embedding column mismatch: not serving",
                      extra={"fields": {"error": self.mismatch}})
            return False
        self._verified = True
        return True
